-- An approval covers exactly the call it was asked for: the digest of its tool and canonical arguments
-- (dev.cohort.core.engine.CallDigest). Rows stored before this column are checked against their stored arguments.
ALTER TABLE lead.approvals ADD COLUMN args_digest text;

package dev.cohort.lead.approvals;

import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Approval requests in {@code lead.approvals}; every transition is one conditional statement. */
@ApplicationScoped
public class ApprovalRepository {

    /** A stored approval request. Status: pending → approved | denied | expired | cancelled (its turn ended first). */
    public record ApprovalRow(String id, String team, String agent, String turnId, String callId, String tool, String argsJson,
            String reason, String status, String answer, Instant createdAt, Instant expiresAt, Instant resolvedAt,
            String argsDigest) {
    }

    @Inject
    AgroalDataSource ds;

    /** Stores a pending request unless one with this id exists; returns the stored one either way. */
    public ApprovalRow insertIfAbsent(String id, String team, String agent, String turnId, String callId, String tool,
            Object args, String argsDigest, String reason, Instant expiresAt) {
        return Sql.inTransaction(ds, "store approval " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.approvals (id, team, agent, turn_id, call_id, tool, "
                    + "args, reason, expires_at, args_digest) VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)"
                    + " ON CONFLICT (id) DO NOTHING")) {
                Sql.bind(ps, id, team, agent, turnId, callId, tool, Json.write(args), reason);
                ps.setTimestamp(9, Timestamp.from(expiresAt));
                ps.setString(10, argsDigest);
                ps.executeUpdate();
            }
            return find(c, id).orElseThrow();
        });
    }

    /** Of these requests, those that are no longer waiting: answered, or past their expiry (one query for all). */
    public List<String> settled(Collection<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return Sql.inTransaction(ds, "read settled approvals", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM lead.approvals WHERE id = ANY(?) "
                    + "AND (status <> 'pending' OR expires_at <= now())")) {
                ps.setArray(1, c.createArrayOf("text", ids.toArray()));
                List<String> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
                return out;
            }
        });
    }

    /** Of these requests of {@code team}, those no longer waiting (for a teammate host's sweep, one query). */
    public List<String> settled(String team, Collection<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return Sql.inTransaction(ds, "read settled approvals of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM lead.approvals WHERE team = ? AND id = ANY(?) "
                    + "AND (status <> 'pending' OR expires_at <= now()) ORDER BY id")) {
                ps.setString(1, team);
                ps.setArray(2, c.createArrayOf("text", ids.toArray()));
                List<String> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
                return out;
            }
        });
    }

    public Optional<ApprovalRow> find(String id) {
        return Sql.inTransaction(ds, "read approval " + id, c -> find(c, id));
    }

    /** pending → approved/denied, only while not expired; false when it was no longer pending. */
    public boolean resolve(String team, String id, boolean approve, String answer) {
        return Sql.inTransaction(ds, "resolve approval " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.approvals SET status = ?, answer = ?, resolved_at = now() "
                    + "WHERE id = ? AND team = ? AND status = 'pending' AND expires_at > now()")) {
                Sql.bind(ps, approve ? "approved" : "denied", answer, id, team);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** pending → expired once its time is up; false when it was answered first. */
    public boolean expire(String id) {
        return Sql.inTransaction(ds, "expire approval " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.approvals SET status = 'expired', resolved_at = now() "
                    + "WHERE id = ? AND status = 'pending'")) {
                ps.setString(1, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * pending → cancelled for every request still waiting in turn {@code turnId} of {@code agent}: the turn ended
     * (interrupted, failed, out of budget) while parked on them, so no answer can matter any more. One statement;
     * returns the requests it cancelled (none when every one was answered or expired first).
     */
    public List<ApprovalRow> cancelPendingOfTurn(String team, String agent, String turnId, String answer) {
        return Sql.inTransaction(ds, "cancel approvals of turn " + turnId, c -> {
            List<String> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.approvals SET status = 'cancelled', answer = ?, "
                    + "resolved_at = now() WHERE team = ? AND agent = ? AND turn_id = ? AND status = 'pending' RETURNING id")) {
                Sql.bind(ps, answer, team, agent, turnId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getString(1));
                    }
                }
            }
            List<ApprovalRow> out = new ArrayList<>();
            for (String id : ids) {
                find(c, id).ifPresent(out::add);
            }
            return out;
        });
    }

    public List<ApprovalRow> list(String team, String status) {
        return Sql.inTransaction(ds, "list approvals of " + team, c -> {
            // an expired-but-unmarked request is shown as expired
            try (PreparedStatement ps = c.prepareStatement(SELECT + " WHERE team = ? AND (? IS NULL OR "
                    + "(CASE WHEN status = 'pending' AND expires_at <= now() THEN 'expired' ELSE status END) = ?) ORDER BY created_at")) {
                Sql.bind(ps, team, status, status);
                try (ResultSet rs = ps.executeQuery()) {
                    List<ApprovalRow> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                    return out;
                }
            }
        });
    }

    private static final String SELECT = "SELECT id, team, agent, turn_id, call_id, tool, args::text, reason, "
            + "CASE WHEN status = 'pending' AND expires_at <= now() THEN 'expired' ELSE status END, answer, created_at, expires_at, "
            + "resolved_at, args_digest FROM lead.approvals";

    private static Optional<ApprovalRow> find(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT + " WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    private static ApprovalRow row(ResultSet rs) throws SQLException {
        Timestamp resolved = rs.getTimestamp(13);
        return new ApprovalRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10),
                rs.getTimestamp(11).toInstant(), rs.getTimestamp(12).toInstant(), resolved == null ? null : resolved.toInstant(),
                rs.getString(14));
    }
}

package dev.cohort.lead.tasks;

import java.time.Instant;
import java.util.List;

/**
 * One row of {@code lead.tasks} with its dependencies.
 *
 * @param blockedBy    every dependency id, ascending
 * @param unmet        the dependencies not completed yet, ascending (empty = unblocked)
 * @param leaseExpired the claim's lease ran out (by the database clock) and nobody renewed it
 * @param worktree     the git worktree the task is bound to, or {@code null}
 * @param role         only a teammate of this role takes the task, or {@code null}
 * @param assignee     only this agent takes the task, or {@code null}
 */
public record TaskRow(long id, String team, String subject, String description, String status, String owner,
        List<Long> blockedBy, List<Long> unmet, String leaseToken, Instant leaseUntil, boolean leaseExpired,
        Instant claimedAt, Instant completedAt, String result, int claims, int version, String createdBy,
        Instant createdAt, Instant updatedAt, String worktree, String role, String assignee) {

    public static final String PENDING = "pending";
    public static final String IN_PROGRESS = "in_progress";
    public static final String COMPLETED = "completed";

    public TaskRow {
        blockedBy = List.copyOf(blockedBy);
        unmet = List.copyOf(unmet);
    }

    /** Status as an observer should read it: a claim whose lease expired is pending again. */
    public String effectiveStatus() {
        return IN_PROGRESS.equals(status) && leaseExpired ? PENDING : status;
    }

    /** Holder as an observer should read it: nobody once the lease expired. */
    public String effectiveOwner() {
        return IN_PROGRESS.equals(status) && leaseExpired ? null : owner;
    }

    /** Whether an agent {@code agent} of role {@code agentRole} may take this task (no role/assignee = anybody). */
    public boolean eligible(String agent, String agentRole) {
        return (assignee == null || assignee.equals(agent)) && (role == null || role.equals(agentRole));
    }

    /** Pending (or an expired claim) with every dependency completed. */
    public boolean claimable() {
        return PENDING.equals(effectiveStatus()) && unmet.isEmpty();
    }
}

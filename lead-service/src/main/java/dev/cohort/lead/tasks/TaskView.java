package dev.cohort.lead.tasks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * A task as clients and the model see it: ids as {@code task_<n>}, status and owner as they are now (an expired
 * claim reads as pending), the unmet dependencies as {@code blockers}. The lease token is never shown here: it is
 * the holder's proof and only its claim answer carries it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TaskView(String id, String subject, String description, String status, String owner,
        List<String> blockedBy, List<String> blockers, boolean claimable, Instant leaseUntil, Instant claimedAt,
        Instant completedAt, String result, int claims, int version, String createdBy, Instant createdAt,
        Instant updatedAt, String worktree, String role, String assignee) {

    public static TaskView of(TaskRow r) {
        boolean held = TaskRow.IN_PROGRESS.equals(r.effectiveStatus());
        return new TaskView(TaskIds.format(r.id()), r.subject(), r.description(), r.effectiveStatus(), r.effectiveOwner(),
                r.blockedBy().stream().map(TaskIds::format).toList(), r.unmet().stream().map(TaskIds::format).toList(),
                r.claimable(), held ? r.leaseUntil() : null, held || TaskRow.COMPLETED.equals(r.status()) ? r.claimedAt() : null,
                r.completedAt(), r.result(), r.claims(), r.version(), r.createdBy(), r.createdAt(), r.updatedAt(),
                r.worktree(), r.role(), r.assignee());
    }
}

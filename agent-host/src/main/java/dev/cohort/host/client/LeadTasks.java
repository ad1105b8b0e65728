package dev.cohort.host.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * The wire shapes of the lead's internal board API ({@code /internal/v1/teams/{team}/tasks}), as its callers see
 * them: the lead-service's {@code InternalTasksResource} records, copied field for field; unknown fields are ignored
 * so the lead can add some without breaking teammates.
 */
public final class LeadTasks {
    private LeadTasks() {
    }

    /** A task as the board shows it; ids are {@code task_<n>}, {@code blockers} the unmet dependencies. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Task(String id, String subject, String description, String status, String owner,
            List<String> blockedBy, List<String> blockers, boolean claimable, Instant leaseUntil, Instant claimedAt,
            Instant completedAt, String result, int claims, int version, String createdBy, Instant createdAt,
            Instant updatedAt, String worktree, String role, String assignee) {
    }

    /** A claim: the task, the token to send back on heartbeat/complete/release, whether it was a new claim. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Claim(Task task, String leaseToken, Instant leaseUntil, boolean fresh) {
    }

    /** A completion: the task and exactly the tasks it unblocked; {@code repeated} for an already-completed task. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Completion(Task task, List<Task> unblocked, boolean repeated) {
    }

    /** Body of create. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record CreateRequest(String agent, String subject, String description, List<String> blockedBy, String role,
            String assignee) {
        CreateRequest(String agent, String subject, String description, List<String> blockedBy) {
            this(agent, subject, description, blockedBy, null, null);
        }
    }

    /** Body of claim and claim-next. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimRequest(String agent, String leaseToken, Double leaseSeconds, String role) {
        ClaimRequest(String agent, String leaseToken, Double leaseSeconds) {
            this(agent, leaseToken, leaseSeconds, null);
        }
    }

    /** Body of complete. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record CompleteRequest(String agent, String leaseToken, String result) {
    }

    /** Body of release. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ReleaseRequest(String agent, String leaseToken) {
    }

    /** Body of heartbeat. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record HeartbeatRequest(String agent, String leaseToken, Double leaseSeconds) {
    }

    /** One lease of a batched heartbeat. */
    public record LeaseRef(String id, String agent, String leaseToken) {
    }

    /** Body of the batched heartbeat. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record HeartbeatsRequest(List<LeaseRef> leases, Double leaseSeconds) {
    }

    /** Answer of the batched heartbeat: the ids renewed and the ids whose lease is lost. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Renewal(List<String> renewed, List<String> lost) {
    }

    /** One claimer of a batched claim: the agent, the lease token it asks with, its role. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BatchClaimer(String agent, String leaseToken, String role) {
    }

    /** Body of claim-batch. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimBatchRequest(List<BatchClaimer> claimers, Double leaseSeconds) {
    }

    /** One claim of a batch: who got it, then a single claim's fields. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record BatchClaim(String agent, Task task, String leaseToken, Instant leaseUntil, boolean fresh) {
        /** As a single claim's answer. */
        public Claim claim() {
            return new Claim(task, leaseToken, leaseUntil, fresh);
        }
    }

    /** Answer of claim-batch: the claims that went through; a claimer absent from it got nothing. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ClaimBatch(List<BatchClaim> claims) {
    }
}

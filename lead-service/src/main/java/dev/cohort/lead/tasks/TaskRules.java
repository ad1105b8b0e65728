package dev.cohort.lead.tasks;

import dev.cohort.core.protocol.Ids;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The board's rules as pure functions (CONVENTIONS #7): what a new task may look like, how long a lease may be, and
 * why a transition that the database refused was refused. The database statements enforce the same guards
 * atomically; these functions only explain a refusal to the caller, naming what is in the way.
 */
public final class TaskRules {
    private TaskRules() {
    }

    /** A validated new task. */
    public record NewTask(String subject, String description, long[] blockedBy, String role, String assignee) {
        public NewTask(String subject, String description, long[] blockedBy) {
            this(subject, description, blockedBy, null, null);
        }
    }

    /** Longest role a task may name: a teammate's role is a short label ("tester", "backend developer"). */
    public static final int MAX_ROLE_CHARS = 64;

    /** Checks and normalises a new task for anybody (no role, no assignee). */
    public static NewTask validateNew(String subject, String description, List<String> blockedBy, TaskConfig cfg) {
        return validateNew(subject, description, blockedBy, null, null, cfg);
    }

    /** Checks and normalises a new task (every problem at once, so the caller can fix them in one go). */
    public static NewTask validateNew(String subject, String description, List<String> blockedBy, String role,
            String assignee, TaskConfig cfg) {
        List<String> problems = new ArrayList<>();
        String r = role == null || role.isBlank() ? null : role.strip();
        if (r != null && (r.length() > MAX_ROLE_CHARS || r.chars().anyMatch(ch -> ch == '\n' || ch == '\r'))) {
            problems.add("role must be one line of at most " + MAX_ROLE_CHARS + " characters (a teammate's role)");
        }
        String a = assignee == null || assignee.isBlank() ? null : assignee.strip();
        if (a != null && !Ids.isAgent(a)) {
            problems.add("assignee \"" + TaskIds.abbreviate(a) + "\" is not an agent name (" + Ids.AGENT.pattern() + ")");
        }
        String s = subject == null ? "" : subject.strip();
        if (s.isEmpty()) {
            problems.add("subject is required (a one-line title)");
        } else if (s.codePointCount(0, s.length()) > cfg.maxSubjectChars()) {
            problems.add("subject is longer than " + cfg.maxSubjectChars() + " characters; put details in description");
        } else if (s.chars().anyMatch(ch -> ch == '\n' || ch == '\r')) {
            problems.add("subject must be one line; put details in description");
        }
        String d = description == null ? "" : description.strip();
        if (d.codePointCount(0, d.length()) > cfg.maxDescriptionChars()) {
            problems.add("description is longer than " + cfg.maxDescriptionChars() + " characters");
        }
        List<String> deps = blockedBy == null ? List.of() : blockedBy;
        Set<Long> ids = new LinkedHashSet<>();
        for (String raw : deps) {
            var id = TaskIds.parse(raw);
            if (id.isEmpty()) {
                problems.add("blockedBy entry \"" + TaskIds.abbreviate(raw) + "\" is not a task id (task_<number>)");
            } else {
                ids.add(id.getAsLong());
            }
        }
        if (ids.size() > cfg.maxBlockedBy()) {
            problems.add("at most " + cfg.maxBlockedBy() + " dependencies per task, got " + ids.size());
        }
        if (!problems.isEmpty()) {
            throw TaskRefusal.invalid(String.join("; ", problems));
        }
        return new NewTask(s, d, ids.stream().mapToLong(Long::longValue).sorted().toArray(), r, a);
    }

    /** The lease to grant in milliseconds: the default when none is asked, else the request clamped-checked. */
    public static double leaseMillis(Double requestedSeconds, TaskConfig cfg) {
        if (requestedSeconds == null) {
            return cfg.defaultLease().toMillis();
        }
        double ms = requestedSeconds * 1000.0;
        if (!(ms >= cfg.minLease().toMillis() && ms <= cfg.maxLease().toMillis())) {
            throw TaskRefusal.invalid("leaseSeconds must be between " + seconds(cfg.minLease()) + " and "
                    + seconds(cfg.maxLease()) + ", got " + requestedSeconds);
        }
        return ms;
    }

    /** Checks an agent name and a lease token from a request. */
    public static void validateHolder(Holder h, TaskConfig cfg) {
        if (!Ids.isAgent(h.agent())) {
            throw TaskRefusal.invalid("agent \"" + TaskIds.abbreviate(h.agent()) + "\" is not an agent name ("
                    + Ids.AGENT.pattern() + ")");
        }
        if (!h.ownerOnly() && (h.token() == null || h.token().isBlank() || h.token().length() > cfg.maxLeaseTokenChars())) {
            throw TaskRefusal.invalid("leaseToken must be 1.." + cfg.maxLeaseTokenChars() + " characters");
        }
    }

    /**
     * Why {@code holder} could not claim {@code task} (in order: status → owner → dependencies), or null when the
     * task looks claimable now (it changed after the statement ran: the caller may retry). {@code deps} holds the
     * rows of the unmet dependencies, to name them.
     */
    public static TaskRefusal whyNotClaimable(TaskRow task, Holder holder, Map<Long, TaskRow> deps) {
        return whyNotClaimable(task, holder, null, deps);
    }

    /**
     * {@link #whyNotClaimable(TaskRow, Holder, Map)} for a caller of role {@code role}: a task that names another
     * assignee or role is refused first (it is not this caller's to take, whatever its state).
     */
    public static TaskRefusal whyNotClaimable(TaskRow task, Holder holder, String role, Map<Long, TaskRow> deps) {
        String name = label(task);
        if (task.assignee() != null && !task.assignee().equals(holder.agent())) {
            return new TaskRefusal(TaskRefusal.Code.NOT_ELIGIBLE, name + " is assigned to " + task.assignee()
                    + "; only " + task.assignee() + " takes it", null, task.owner());
        }
        if (task.role() != null && !task.role().equals(role)) {
            return new TaskRefusal(TaskRefusal.Code.NOT_ELIGIBLE, name + " is for role '" + task.role() + "'"
                    + (role == null ? "" : ", not '" + role + "'") + "; only a teammate of that role takes it", null,
                    task.owner());
        }
        String status = task.effectiveStatus();
        if (TaskRow.COMPLETED.equals(status)) {
            return new TaskRefusal(TaskRefusal.Code.STATUS, name + " is already completed"
                    + (task.owner() == null ? "" : " by " + task.owner()) + "; nothing to claim", null, task.owner());
        }
        if (TaskRow.IN_PROGRESS.equals(status)) {
            if (task.owner().equals(holder.agent())) {
                return new TaskRefusal(TaskRefusal.Code.LEASE_MISMATCH, name + " is already held by " + holder.agent()
                        + " under another lease token; send that token, or wait until that lease expires", null,
                        task.owner());
            }
            return new TaskRefusal(TaskRefusal.Code.OWNED, name + " is already claimed by " + task.owner()
                    + "; pick another task", null, task.owner());
        }
        if (!task.unmet().isEmpty()) {
            List<TaskRefusal.Blocker> blockers = task.unmet().stream().map(id -> {
                TaskRow dep = deps.get(id);
                return new TaskRefusal.Blocker(TaskIds.format(id), dep == null ? null : dep.subject(),
                        dep == null ? null : dep.effectiveStatus());
            }).toList();
            return new TaskRefusal(TaskRefusal.Code.BLOCKED, name + " is blocked by "
                    + blockers.stream().map(TaskRules::describe).collect(Collectors.joining(", "))
                    + "; complete those first", blockers, null);
        }
        return null;
    }

    /**
     * Why {@code holder} could not complete {@code task}, or null when the task is already completed by this same
     * holder (a repeated completion, answered as success).
     */
    public static TaskRefusal whyNotCompletable(TaskRow task, Holder holder) {
        if (TaskRow.COMPLETED.equals(task.status()) && holds(task, holder)) {
            return null;
        }
        if (TaskRow.COMPLETED.equals(task.status())) {
            return new TaskRefusal(TaskRefusal.Code.STATUS, label(task) + " is already completed by " + task.owner(),
                    null, task.owner());
        }
        return notHeld(task, holder, "complete", "claim it first");
    }

    /** Why {@code holder} could not release {@code task}, or null when there is nothing to release (already free). */
    public static TaskRefusal whyNotReleasable(TaskRow task, Holder holder) {
        if (TaskRow.PENDING.equals(task.effectiveStatus())) {
            return null;
        }
        if (TaskRow.COMPLETED.equals(task.status())) {
            return new TaskRefusal(TaskRefusal.Code.STATUS, label(task) + " is completed; it cannot be released", null,
                    task.owner());
        }
        return notHeld(task, holder, "release", null);
    }

    /** Why {@code holder} could not renew its lease on {@code task}; never null. */
    public static TaskRefusal whyNotRenewable(TaskRow task, Holder holder) {
        if (TaskRow.COMPLETED.equals(task.status())) {
            return new TaskRefusal(TaskRefusal.Code.STATUS, label(task) + " is completed; no lease to renew", null,
                    task.owner());
        }
        return notHeld(task, holder, "renew", "claim it again");
    }

    private static TaskRefusal notHeld(TaskRow task, Holder holder, String verb, String hint) {
        String name = label(task);
        String suffix = hint == null ? "" : "; " + hint;
        if (TaskRow.IN_PROGRESS.equals(task.status()) && holds(task, holder) && task.leaseExpired()) {
            return new TaskRefusal(TaskRefusal.Code.LEASE_EXPIRED, "your lease on " + name + " expired at "
                    + task.leaseUntil() + "; it is claimable again" + suffix, null, null);
        }
        if (TaskRow.PENDING.equals(task.effectiveStatus())) {
            return new TaskRefusal(holder.ownerOnly() ? TaskRefusal.Code.STATUS : TaskRefusal.Code.LEASE_EXPIRED,
                    name + " is pending: nobody holds it (a lease may have expired or been released), so you cannot "
                            + verb + " it" + suffix, null, null);
        }
        if (!Objects.equals(task.owner(), holder.agent())) {
            return new TaskRefusal(TaskRefusal.Code.NOT_OWNER, name + " is held by " + task.owner() + "; only the holder can "
                    + verb + " it", null, task.owner());
        }
        return new TaskRefusal(TaskRefusal.Code.LEASE_MISMATCH, name + " is held by " + holder.agent()
                + " under another lease token (a newer claim); stop working on it", null, task.owner());
    }

    /** The same agent and, unless identified by name alone, the same lease token. */
    static boolean holds(TaskRow task, Holder holder) {
        return Objects.equals(task.owner(), holder.agent())
                && (holder.ownerOnly() || Objects.equals(task.leaseToken(), holder.token()));
    }

    /** {@code task_3 (write tests)}. */
    public static String label(TaskRow t) {
        return TaskIds.format(t.id()) + " (" + t.subject() + ")";
    }

    private static String describe(TaskRefusal.Blocker b) {
        return b.subject() == null ? b.id() + " (does not exist)" : b.id() + " (" + b.subject() + ") [" + b.status() + "]";
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() / 1000.0 + "s";
    }
}

package dev.cohort.core.tools;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The default per-role allowlists (ARCHITECTURE §4.3). A host may narrow them per agent; the engine enforces the
 * allowlist where a call is executed, not only in the schemas sent to the model.
 */
public final class Toolsets {
    /**
     * File and shell tools, and the caller's own background jobs (all roles, ARCHITECTURE §4.3): everything that goes
     * to the tool runner for any agent.
     */
    /** The todo tool's name: while it is offered, the loop reminds the agent of unfinished todos. */
    public static final String TODO_WRITE = "todo_write";
    /** The skill tool's name: while it is offered, the prompt lists the skills. */
    public static final String LOAD_SKILL = "load_skill";

    public static final Set<String> WORKSPACE = Set.of("bash", "read_file", "write_file", "edit_file", "glob", "grep",
            "check_background", "cancel_background");

    /** The lead's tools. */
    public static final Set<String> LEAD = union(WORKSPACE, Set.of("todo_write", "spawn_subagent", "load_skill",
            "compact", "create_task", "list_tasks", "get_task", "claim_task", "complete_task", "schedule_cron",
            "list_crons", "cancel_cron", "spawn_teammate", "send_message", "check_inbox", "request_shutdown",
            "request_plan", "review_plan", "create_worktree", "remove_worktree", "keep_worktree", "list_worktrees",
            "memory_write", "memory_delete"));

    /** A teammate's tools. */
    public static final Set<String> TEAMMATE = union(WORKSPACE, Set.of("todo_write", "load_skill", "list_tasks",
            "get_task", "claim_task", "complete_task", "send_message", "check_inbox", "submit_plan"));

    /** A subagent's tools: file and shell only, so no nesting, no todo clobbering. */
    public static final Set<String> SUBAGENT = WORKSPACE;

    private Toolsets() {
    }

    /** The default allowlist of {@code role}. */
    public static Set<String> forRole(AgentRole role) {
        return switch (role) {
            case LEAD -> LEAD;
            case TEAMMATE -> TEAMMATE;
            case SUBAGENT -> SUBAGENT;
        };
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> s = new LinkedHashSet<>(a);
        s.addAll(b);
        return Set.copyOf(s);
    }
}

package dev.cohort.core.tools;

/**
 * Something a tool call changed that the engine or the host must act on, reported in its {@link ToolResult} instead
 * of the engine reacting to tool names. The tool orchestrator applies the effects of a successful call (before any
 * PostToolUse hook, which may rewrite the text but not undo what happened), then hands each one to the host
 * ({@link dev.cohort.core.engine.AgentContext#effects()}).
 */
public sealed interface ToolEffect {

    /** The agent's todo list was replaced: the reminder counter restarts and {@code todo_updated} is emitted. */
    record TodosChanged() implements ToolEffect {
    }

    /**
     * The agent asked for its conversation to be summarised before the next model call.
     *
     * @param focus what the summary must keep in detail, {@code null} for none
     */
    record CompactRequested(String focus) implements ToolEffect {
    }

    /**
     * A skill's body entered the conversation: it is re-injected after compaction.
     *
     * @param name the skill's name
     */
    record SkillLoaded(String name) implements ToolEffect {
    }

    /**
     * The agent claimed a task: a host binds the agent's working directory to the task's worktree, so its
     * next tool call runs there.
     *
     * @param taskId   the task
     * @param worktree the task's worktree name, {@code null} when it has none
     */
    record TaskClaimed(String taskId, String worktree) implements ToolEffect {
    }
}

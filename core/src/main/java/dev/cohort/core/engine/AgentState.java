package dev.cohort.core.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.todo.TodoItem;
import java.util.List;

/**
 * Everything an agent's loop needs to continue on another replica: the conversation, its todos, counters, loaded
 * skills, usage, and the turn in progress (if any). A plain JSON value ({@link #toJson()}, {@link #fromJson}).
 *
 * @param version        schema version of this value
 * @param messages       the conversation (no system prompt)
 * @param todos          the todo list (s05)
 * @param roundsSinceTodo tool rounds since the last successful {@code todo_write}
 * @param loadedSkills   skills loaded with {@code load_skill}, in order (re-injected after compaction)
 * @param usage          the agent's usage over its lifetime
 * @param turn           the turn in progress, {@code null} when idle
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AgentState(int version, List<Message> messages, List<TodoItem> todos, int roundsSinceTodo,
        List<String> loadedSkills, Usage usage, TurnProgress turn) {
    public static final int VERSION = 1;

    public AgentState {
        messages = messages == null ? List.of() : List.copyOf(messages);
        todos = todos == null ? List.of() : List.copyOf(todos);
        loadedSkills = loadedSkills == null ? List.of() : List.copyOf(loadedSkills);
        usage = usage == null ? Usage.ZERO : usage;
    }

    /** A new agent with nothing said yet. */
    public static AgentState empty() {
        return new AgentState(VERSION, List.of(), List.of(), 0, List.of(), Usage.ZERO, null);
    }

    public String toJson() {
        return Json.write(this);
    }

    public static AgentState fromJson(String json) {
        return Json.read(json, AgentState.class);
    }

    /**
     * A turn in progress.
     *
     * @param turnId            the turn id
     * @param source            where the input came from ({@code http}, {@code cron}, …)
     * @param unattended        nobody is watching: asks are denied
     * @param modelCalls        model calls made in this turn
     * @param stopContinuations times Stop hooks forced a continuation
     * @param usage             usage of this turn
     * @param stuck             the stuck guard's counters
     */
    public record TurnProgress(String turnId, String source, boolean unattended, int modelCalls, int stopContinuations,
            Usage usage, StuckGuard.State stuck) {
        public TurnProgress {
            usage = usage == null ? Usage.ZERO : usage;
            stuck = stuck == null ? StuckGuard.State.EMPTY : stuck;
        }
    }
}

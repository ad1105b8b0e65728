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
 * @param todos          the todo list
 * @param roundsSinceTodo tool rounds since the last successful {@code todo_write}
 * @param loadedSkills   skills loaded with {@code load_skill}, in order (re-injected after compaction)
 * @param usage          the agent's usage over its lifetime
 * @param turn           the turn in progress, {@code null} when idle
 * @param context        the prompt size the provider reported for the last call and how many messages it covered
 *                       (compaction estimates from it), {@code null} when unknown
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AgentState(int version, List<Message> messages, List<TodoItem> todos, int roundsSinceTodo,
        List<String> loadedSkills, Usage usage, TurnProgress turn, ContextStats context) {
    public static final int VERSION = 1;

    /** The state of engine (I) (source compatibility): no context statistics. */
    public AgentState(int version, List<Message> messages, List<TodoItem> todos, int roundsSinceTodo,
            List<String> loadedSkills, Usage usage, TurnProgress turn) {
        this(version, messages, todos, roundsSinceTodo, loadedSkills, usage, turn, null);
    }

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

    /** The same state with {@code next} as its conversation (a store that keeps the messages apart rebuilds it so). */
    public AgentState withMessages(List<Message> next) {
        return new AgentState(version, next, todos, roundsSinceTodo, loadedSkills, usage, turn, context);
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
     * @param request           the turn's user request (after hooks): compaction never drops it
     * @param recovery          error-recovery state of this turn (fallback model, escalation, continuations)
     * @param waiting           what the parked turn waits for, {@code null} while it runs
     * @param promptIds         the prompts the turn answers: the one it started with, then those injected into it
     */
    public record TurnProgress(String turnId, String source, boolean unattended, int modelCalls, int stopContinuations,
            Usage usage, StuckGuard.State stuck, String request, Recovery recovery, Wait waiting,
            List<String> promptIds) {
        public TurnProgress {
            usage = usage == null ? Usage.ZERO : usage;
            stuck = stuck == null ? StuckGuard.State.EMPTY : stuck;
            recovery = recovery == null ? Recovery.FRESH : recovery;
            promptIds = promptIds == null ? List.of() : List.copyOf(promptIds);
        }

        /** A turn that answers no prompt (or saved before turns carried their prompts). */
        public TurnProgress(String turnId, String source, boolean unattended, int modelCalls, int stopContinuations,
                Usage usage, StuckGuard.State stuck, String request, Recovery recovery, Wait waiting) {
            this(turnId, source, unattended, modelCalls, stopContinuations, usage, stuck, request, recovery, waiting,
                    null);
        }

        /** A turn of engine (I) (source compatibility). */
        public TurnProgress(String turnId, String source, boolean unattended, int modelCalls, int stopContinuations,
                Usage usage, StuckGuard.State stuck) {
            this(turnId, source, unattended, modelCalls, stopContinuations, usage, stuck, null, null, null);
        }

        /** A turn of engine (II) (source compatibility): not parked. */
        public TurnProgress(String turnId, String source, boolean unattended, int modelCalls, int stopContinuations,
                Usage usage, StuckGuard.State stuck, String request, Recovery recovery) {
            this(turnId, source, unattended, modelCalls, stopContinuations, usage, stuck, request, recovery, null);
        }
    }

    /**
     * What a parked turn waits for.
     *
     * @param kind   {@code approval} (the only kind the engine parks on; hosts may add protocol replies)
     * @param id     the approval id
     * @param callId the tool call that waits
     */
    public record Wait(String kind, String id, String callId) {
        public static final String APPROVAL = "approval";
    }

    /**
     * A turn's error-recovery state (saved so a resumed turn keeps its fallback and limits).
     *
     * @param model               the model in use, null for the configured one (set on the switch to the fallback)
     * @param consecutiveOverloads overloads in a row
     * @param maxOutputTokens     the raised output limit, null when not escalated
     * @param continuations       continuation prompts sent after truncated answers
     * @param truncatedToolRounds replies whose tool calls were cut off
     * @param reactiveCompacted   a context-length error was already answered by compaction in this turn
     */
    public record Recovery(String model, int consecutiveOverloads, Integer maxOutputTokens, int continuations,
            int truncatedToolRounds, boolean reactiveCompacted) {
        public static final Recovery FRESH = new Recovery(null, 0, null, 0, 0, false);

        public Recovery withModel(String m) {
            return new Recovery(m, consecutiveOverloads, maxOutputTokens, continuations, truncatedToolRounds,
                    reactiveCompacted);
        }

        public Recovery withConsecutiveOverloads(int n) {
            return new Recovery(model, n, maxOutputTokens, continuations, truncatedToolRounds, reactiveCompacted);
        }

        public Recovery withMaxOutputTokens(Integer n) {
            return new Recovery(model, consecutiveOverloads, n, continuations, truncatedToolRounds, reactiveCompacted);
        }

        public Recovery withContinuations(int n) {
            return new Recovery(model, consecutiveOverloads, maxOutputTokens, n, truncatedToolRounds, reactiveCompacted);
        }

        public Recovery withTruncatedToolRounds(int n) {
            return new Recovery(model, consecutiveOverloads, maxOutputTokens, continuations, n, reactiveCompacted);
        }

        public Recovery withReactiveCompacted() {
            return new Recovery(model, consecutiveOverloads, maxOutputTokens, continuations, truncatedToolRounds, true);
        }
    }

    /**
     * @param promptTokens prompt tokens the provider reported for the last call
     * @param messages     messages of the conversation that call carried
     */
    public record ContextStats(long promptTokens, int messages) {
    }
}

package dev.cohort.core.host;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.TurnResult;
import java.util.Collection;
import java.util.Set;

/**
 * What one kind of agent (the lead, a teammate) does, as the {@link AgentHost} drives it: the host owns threads,
 * adoption, fencing, hand-over, parking and the running-turn cap; the program owns the agent's inputs and what a
 * turn's end means. All methods but {@link #settled} run on the agent's own thread, one at a time per agent.
 */
public interface AgentProgram {

    /** False when the agent no longer exists (its team was deleted): nothing is adopted or run for it. */
    boolean exists(AgentKey key);

    /**
     * The context of the agent's session. The host adds its fenced {@link dev.cohort.core.engine.StateStore}; the
     * program supplies everything else, including the {@link dev.cohort.core.engine.InboxSource} of inputs that
     * arrive during a turn (their ids come back in the save that contains them, so the program remembers nothing).
     */
    AgentContext context(AgentKey key, AgentRecord record);

    /** Just adopted, before a turn in progress is resumed (e.g. the lead re-queues a prompt whose turn never saved). */
    default void adopted(AgentKey key, AgentRecord record, AgentSession session) {
    }

    /** The turn {@code turnId} in progress is about to be resumed (after a restart, a move, or an answered approval). */
    default void resuming(AgentKey key, String turnId) {
    }

    /**
     * Whether the session of the agent, just parked idle, may be kept in memory for its next wake-up, which then
     * skips the adopt and the session open (at most {@link HostSettings#keptSessions} are kept; any hand-over or
     * adoption drops them, and the kept version still fences every save). Only for a program whose {@link #context}
     * reads nothing that may change while the agent is idle (everything it needs later is read through suppliers).
     * Default: false (a new session at every wake-up).
     */
    default boolean keepIdleSession(AgentKey key) {
        return false;
    }

    /** What to do now that no turn is in progress: a turn, or sleep. */
    Next next(AgentKey key, AgentSession session);

    /**
     * A run or resume returned: parked, detached (both {@link TurnResult#inProgress()}), or ended (completed, failed,
     * cancelled, out of budget), which the program records (e.g. the lead marks the turn's prompts).
     */
    void stopped(AgentKey key, TurnResult result);

    /**
     * An unexpected failure ended turn {@code turnId} (null when none was in progress): the host already saved the
     * state without it, fenced; the program reports it and fails the turn's inputs.
     */
    void abandoned(AgentKey key, String turnId, String message);

    /**
     * Of the ids parked agents wait for (approvals, protocol requests), those that are settled (answered, expired):
     * the host's sweeper asks once per interval for all of them together, from its own thread. Default: none (the
     * agents are woken by inbox items only).
     */
    default Set<String> settled(Collection<String> waitingFor) {
        return Set.of();
    }
}

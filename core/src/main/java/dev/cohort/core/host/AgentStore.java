package dev.cohort.core.host;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.StepSave;
import java.util.List;

/**
 * Durable agent state with a version fence (the port the host saves through; PostgreSQL in {@code agent-host}).
 *
 * <p>{@link #adopt} takes an agent over and <em>bumps</em> its version, so from then on only the newest owner can
 * save: an older owner's next {@link #save} or {@link #park} throws {@link OwnershipLostException}. Every write
 * returns the new version, which is the fence of the caller's next write; a caller never re-reads it.
 */
public interface AgentStore {

    /**
     * Takes the agent over for {@code instance} (a replica's id, recorded for operators): creates it with an empty
     * state on first use, otherwise bumps its version; returns the state and the new version.
     */
    AgentRecord adopt(AgentKey key, String instance);

    /**
     * Saves one step ({@link StepSave}) if the stored version is still {@code expectedVersion}, in one transaction:
     * the state, the inputs it takes in marked as injected, and, when the store {@link #storesEvents() stores events},
     * the step's events. The phase saved is {@link Phase#WORKING} while the state has a turn in progress (parked on an
     * approval: {@link Phase#WAITING_APPROVAL}), otherwise {@link Phase#IDLE}. Returns the new version.
     *
     * @throws OwnershipLostException another host adopted the agent since
     */
    long save(AgentKey key, StepSave step, long expectedVersion);

    /** A step without events: {@link #save(AgentKey, StepSave, long)}. */
    default long save(AgentKey key, AgentState state, long expectedVersion, List<String> injectedIds) {
        return save(key, StepSave.of(state, injectedIds), expectedVersion);
    }

    /** {@code true} when {@link #save(AgentKey, StepSave, long)} stores the step's events (the event log is here). */
    default boolean storesEvents() {
        return false;
    }

    /**
     * Records how the agent is parked (its phase, what it waits for, its deadline), fenced like {@link #save}.
     * Returns the new version.
     *
     * @throws OwnershipLostException another host adopted the agent since
     */
    long park(AgentKey key, Park park, long expectedVersion);

    /** The phase a save of {@code state} records (see {@link #save}). */
    static Phase phaseOf(AgentState state) {
        if (state.turn() == null) {
            return Phase.IDLE;
        }
        return state.turn().waiting() != null && AgentState.Wait.APPROVAL.equals(state.turn().waiting().kind())
                ? Phase.WAITING_APPROVAL : Phase.WORKING;
    }

    /**
     * Whether {@code failure} is the store's connection or server being briefly away (worth adopting the agent again
     * later, from its last save) rather than a failure of the data. A store that cannot be away says no.
     */
    default boolean unavailable(Throwable failure) {
        return false;
    }
}

package dev.cohort.core.engine;

import dev.cohort.core.protocol.Event;
import java.util.List;

/**
 * What one step leaves to be saved, handed to the store as one record: the state after the step, the ids of the
 * inputs it contains for the first time (a host marks them taken in the save's transaction) and the step's events (a
 * store that keeps the event log stores them in that transaction too; otherwise the list is empty and the engine emits
 * them after the save).
 *
 * @param state       the state after the step
 * @param injectedIds the {@link InboxItem#id() ids} of the inputs this state contains for the first time (often empty)
 * @param events      the step's events in order (the reply's {@code assistant_message}, a call's
 *                    {@code tool_call_finished}); empty unless the store {@link StateStore#storesEvents() stores events}
 */
public record StepSave(AgentState state, List<String> injectedIds, List<Event> events) {

    public StepSave {
        injectedIds = List.copyOf(injectedIds);
        events = List.copyOf(events);
    }

    /** A save without events. */
    public static StepSave of(AgentState state, List<String> injectedIds) {
        return new StepSave(state, injectedIds, List.of());
    }
}

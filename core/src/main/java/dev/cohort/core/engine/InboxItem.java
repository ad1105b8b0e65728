package dev.cohort.core.engine;

import java.util.Objects;

/**
 * One message for the agent that arrived while it works, as its host formatted it.
 *
 * @param id   the host's id of the item: after the step that appended it, the engine passes it to
 *             {@link StateStore#save(AgentState, java.util.List)} exactly once, so the host can mark it injected in
 *             the same transaction as the state that now contains it
 * @param text the text appended as a user message (quoted data with its provenance, never instructions)
 * @param promptId the prompt this item is, when it is one (the turn then answers it too); else {@code null}
 */
public record InboxItem(String id, String text, String promptId) {
    public InboxItem {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(text, "text");
    }

    /** An item that is not a prompt (a message, a notification). */
    public InboxItem(String id, String text) {
        this(id, text, null);
    }
}

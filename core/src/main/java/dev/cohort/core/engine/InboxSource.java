package dev.cohort.core.engine;

import java.util.Collection;
import java.util.List;

/**
 * Messages for the agent that arrived while it works (teammate results, background job completions, prompts sent
 * during a turn): drained before every model call of a persistent loop and appended as user messages. Each item's id
 * reaches the {@link StateStore} with the first save of a state that contains it.
 */
@FunctionalInterface
public interface InboxSource {
    InboxSource NONE = List::of;

    /** Takes the pending items the host has not handed out yet (empty when none). */
    List<InboxItem> drain();

    /**
     * {@link #drain()} without what the agent already holds: {@code held} are the ids of items (its turn's input, items
     * injected before) that are in its conversation but not saved yet, so a store still lists them as pending. A
     * source whose ids group several messages (one id per batch) overrides this to leave out every held message.
     */
    default List<InboxItem> drain(Collection<String> held) {
        List<InboxItem> items = drain();
        if (held.isEmpty() || items.isEmpty()) {
            return items;
        }
        return items.stream().filter(i -> i.id() == null || !held.contains(i.id())).toList();
    }
}

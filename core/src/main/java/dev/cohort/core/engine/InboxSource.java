package dev.cohort.core.engine;

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
}

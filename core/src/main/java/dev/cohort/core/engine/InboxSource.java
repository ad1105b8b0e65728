package dev.cohort.core.engine;

import java.util.List;

/**
 * Messages for the agent that arrived while it works (teammate results, background job completions): drained
 * before every model call and appended as user messages, already formatted by the host.
 */
@FunctionalInterface
public interface InboxSource {
    InboxSource NONE = List::of;

    /** Takes the pending messages (empty when none). */
    List<String> drain();
}

package dev.cohort.core.engine.hooks;

import dev.cohort.core.engine.Message;
import dev.cohort.core.tools.ToolContext;
import java.util.List;
import java.util.Optional;

/**
 * Runs when the model answers without tool calls. A non-empty answer forces the turn to continue with that text
 * as a user message (bounded by {@code maxStopContinuations} per turn).
 */
public interface StopHook extends Hook {
    Optional<String> onStop(List<Message> conversation, ToolContext ctx);
}

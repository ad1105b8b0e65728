package dev.cohort.core.engine.hooks;

import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import java.util.Optional;

/**
 * Runs before a tool call (after the permission gate allowed it). The first non-empty answer blocks the call and
 * becomes the tool result; a hook that throws blocks too (fail closed).
 */
public interface PreToolUseHook extends Hook {
    Optional<String> beforeToolUse(ToolCall call, ToolContext ctx);
}

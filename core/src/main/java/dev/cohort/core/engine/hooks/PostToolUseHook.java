package dev.cohort.core.engine.hooks;

import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import java.util.Optional;

/** Runs after a tool call; may replace the result the model sees. Chained. */
public interface PostToolUseHook extends Hook {
    Optional<ToolResult> afterToolUse(ToolCall call, ToolResult result, ToolContext ctx);
}

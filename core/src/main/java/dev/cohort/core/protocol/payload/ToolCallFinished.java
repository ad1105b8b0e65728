package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * {@code tool_call_finished}: a call's result was recorded.
 *
 * @param turnId     the turn
 * @param callId     the model's call id
 * @param tool       the tool name
 * @param durationMs gates plus execution, in milliseconds
 * @param error      {@code true} for a model-visible failure
 * @param preview    the result's text, cut to the preview length
 * @param rule       for an error: the rule or check that produced it, absent otherwise
 * @param subagent   {@code true} for a subagent's call, absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCallFinished(String turnId, String callId, String tool, long durationMs, boolean error, String preview,
        String rule, Boolean subagent) implements EventPayload {
    @Override
    public EventType type() {
        return EventType.TOOL_CALL_FINISHED;
    }
}

package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * {@code tool_call_started}: a tool call is about to go through the gates and run.
 *
 * @param turnId   the turn
 * @param callId   the model's call id
 * @param tool     the tool name
 * @param args     the raw arguments, cut to the preview length
 * @param subagent {@code true} for a subagent's call, absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCallStarted(String turnId, String callId, String tool, String args, Boolean subagent)
        implements EventPayload {
    @Override
    public EventType type() {
        return EventType.TOOL_CALL_STARTED;
    }
}

package dev.cohort.core.engine;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * One message of an agent's conversation (the system prompt is never stored: it is assembled per call). Immutable
 * and JSON-serialisable, so the conversation is a plain value a host saves after every step.
 *
 * @param role       user, assistant or tool
 * @param content    the text (for an assistant message with tool calls it may be null)
 * @param toolCalls  an assistant message's tool calls, in the model's order
 * @param toolCallId a tool message's call id
 * @param toolName   a tool message's tool name
 * @param error      a tool message that reports a failure
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Message(Role role, String content, List<ModelToolCall> toolCalls, String toolCallId, String toolName,
        boolean error) {

    public Message {
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    public static Message user(String text) {
        return new Message(Role.USER, text, List.of(), null, null, false);
    }

    public static Message assistant(String text, List<ModelToolCall> calls) {
        return new Message(Role.ASSISTANT, text, calls, null, null, false);
    }

    public static Message tool(String callId, String toolName, String content, boolean error) {
        return new Message(Role.TOOL, content, List.of(), callId, toolName, error);
    }

    public boolean hasToolCalls() {
        return !toolCalls.isEmpty();
    }

    /** Roles of the chat-completions format. */
    public enum Role {
        USER("user"), ASSISTANT("assistant"), TOOL("tool");

        private final String wire;

        Role(String wire) {
            this.wire = wire;
        }

        @JsonValue
        public String wire() {
            return wire;
        }

        @JsonCreator
        public static Role of(String wire) {
            for (Role r : values()) {
                if (r.wire.equals(wire)) {
                    return r;
                }
            }
            throw new IllegalArgumentException("unknown role " + wire);
        }
    }
}

package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The {@code type} of an {@link Event} on {@link Topics#EVENTS} (ARCHITECTURE §4.2). */
public enum EventType {
    PROMPT_RECEIVED("prompt_received"),
    TURN_STARTED("turn_started"),
    ASSISTANT_MESSAGE("assistant_message"),
    TOOL_CALL_STARTED("tool_call_started"),
    TOOL_CALL_FINISHED("tool_call_finished"),
    TURN_COMPLETED("turn_completed"),
    APPROVAL_REQUESTED("approval_requested"),
    APPROVAL_RESOLVED("approval_resolved"),
    TASK_CREATED("task_created"),
    TASK_CLAIMED("task_claimed"),
    TASK_COMPLETED("task_completed"),
    TEAMMATE_SPAWNED("teammate_spawned"),
    TEAMMATE_PHASE("teammate_phase"),
    MESSAGE_SENT("message_sent"),
    PROTOCOL_UPDATED("protocol_updated"),
    COMPACTED("compacted"),
    MEMORY_UPDATED("memory_updated"),
    CRON_FIRED("cron_fired"),
    BACKGROUND_STARTED("background_started"),
    BACKGROUND_FINISHED("background_finished"),
    TODO_UPDATED("todo_updated"),
    MODEL_RETRY("model_retry"),
    BUDGET_WARNING("budget_warning"),
    BUDGET_EXCEEDED("budget_exceeded"),
    ERROR("error");

    private final String wire;

    EventType(String wire) {
        this.wire = wire;
    }

    /** The name on the wire. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** Parses a wire name; an unknown one is a {@link ProtocolException} that lists the known names. */
    @JsonCreator
    public static EventType of(String wire) {
        for (EventType t : values()) {
            if (t.wire.equals(wire)) {
                return t;
            }
        }
        throw new ProtocolException("unknown event type \"" + wire + "\"; known: "
                + Arrays.stream(values()).map(EventType::wire).collect(Collectors.joining(", ")));
    }
}

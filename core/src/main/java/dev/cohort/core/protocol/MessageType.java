package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The {@code type} of an {@link AgentMessage} on the inbox topics (ARCHITECTURE §4.2). */
public enum MessageType {
    MESSAGE("message"),
    RESULT("result"),
    SHUTDOWN_REQUEST("shutdown_request"),
    SHUTDOWN_RESPONSE("shutdown_response"),
    PLAN_APPROVAL_REQUEST("plan_approval_request"),
    PLAN_APPROVAL_RESPONSE("plan_approval_response"),
    TASK_AVAILABLE("task_available"),
    BACKGROUND_DONE("background_done"),
    SPAWN("spawn"),
    /**
     * A command to the agent's host, never injected into a conversation (e.g. interrupt the running turn): it rides the
     * agent's inbox topic so that it reaches whichever replica owns the agent's partition.
     */
    CONTROL("control");

    private final String wire;

    MessageType(String wire) {
        this.wire = wire;
    }

    /** The name on the wire. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** Parses a wire name; an unknown one is a {@link ProtocolException} that lists the known names. */
    @JsonCreator
    public static MessageType of(String wire) {
        for (MessageType t : values()) {
            if (t.wire.equals(wire)) {
                return t;
            }
        }
        throw new ProtocolException("unknown message type \"" + wire + "\"; known: "
                + Arrays.stream(values()).map(MessageType::wire).collect(Collectors.joining(", ")));
    }
}

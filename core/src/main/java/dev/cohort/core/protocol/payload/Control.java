package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.ProtocolException;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The metadata of {@code control}: a command for the agent's host, acted on by the replica that owns the agent's
 * partition and never stored as an inbox message or shown to the model.
 *
 * @param action what the host does
 * @param turnId the turn the sender saw in progress: a host whose agent is on another turn by then (a redelivered or
 *               late command) ignores the command instead of acting on a turn nobody asked about. Omitted: whichever
 *               turn is in progress when the host acts (for hand-written producers; lead-service always names it)
 * @param approvalId with {@code approval_resolved}: the approval that was answered
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Control(Action action, String turnId, String approvalId) implements MessageMetadata {

    public Control(Action action, String turnId) {
        this(action, turnId, null);
    }


    /** A host command. */
    public enum Action {
        /** End the running turn at its next step, or a turn parked on an approval (it ends cancelled). */
        INTERRUPT("interrupt"),
        /**
         * An approval the agent may be parked on was answered (on whichever replica took the answer): the owner wakes
         * the agent if it is parked here, so it resumes at once instead of at the next sweep.
         */
        APPROVAL_RESOLVED("approval_resolved");

        private final String wire;

        Action(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }

        /** Parses a wire name; an unknown one is a {@link ProtocolException} that lists the known names. */
        @JsonCreator
        public static Action of(String wire) {
            for (Action a : values()) {
                if (a.wire.equals(wire)) {
                    return a;
                }
            }
            throw new ProtocolException("unknown control action \"" + wire + "\"; known: "
                    + Arrays.stream(values()).map(Action::wire).collect(Collectors.joining(", ")));
        }
    }

    /** Interrupt the agent's running or parked turn {@code turnId} (or, when null, whichever is in progress). */
    public static Control interrupt(String turnId) {
        return new Control(Action.INTERRUPT, turnId);
    }

    /** Approval {@code approvalId} was answered: wake the agent parked on it. */
    public static Control approvalResolved(String approvalId) {
        return new Control(Action.APPROVAL_RESOLVED, null, approvalId);
    }

    @Override
    public MessageType type() {
        return MessageType.CONTROL;
    }
}

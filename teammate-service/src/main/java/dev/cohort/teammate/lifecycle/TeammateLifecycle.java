package dev.cohort.teammate.lifecycle;

import dev.cohort.core.engine.StopReason;
import dev.cohort.core.protocol.payload.TeammateResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A teammate's lifecycle (WORK → IDLE → SHUTDOWN) as one pure function, {@link #next}: a phase and what just
 * happened give the next phase and what the host does about it. {@link TeammateProgram} feeds it and carries the
 * actions out; this class touches nothing.
 *
 * <pre>
 *   WORKING  --turn ended (budget_exceeded)-->  SHUTDOWN  [result budget_exceeded, mark shut down, phase event]
 *   WORKING  --turn ended (anything else)---->  IDLE      [result &lt;status&gt;, idle deadline = now + timeout, phase event]
 *   IDLE     --an inbox item is pending------>  WORKING   [phase event, run a turn on the pending items]
 *   IDLE     --no item, deadline passed------>  SHUTDOWN  [result shutdown, mark shut down, phase event, park]
 *   IDLE     --no item, deadline ahead------->  IDLE      [park until the same deadline: a spurious wake-up]
 *   IDLE     --no item, no deadline---------->  IDLE      [deadline = now + timeout, park until it (adopted idle)]
 *   SHUTDOWN --anything---------------------->  SHUTDOWN  [park, no deadline: only a spawn restarts it]
 * </pre>
 */
public final class TeammateLifecycle {

    /** The lifecycle phases (the wire names of {@code teammate_phase}). */
    public enum Phase {
        WORKING("working"), IDLE("idle"), SHUTDOWN("shutdown");

        private final String wire;

        Phase(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    /** What happened. */
    public sealed interface Input {
        /** A turn ended (not parked, not detached). */
        record TurnEnded(String turnId, StopReason reason, String text, Instant now) implements Input {
        }

        /** No turn is in progress and the host asks what next. */
        record Check(boolean inputPending, Instant idleDeadline, Instant now) implements Input {
        }
    }

    /** What the host does. */
    public sealed interface Action {
        /** Send a {@code result} to the lead. */
        record SendResult(String turnId, String status, String reason, String summary) implements Action {
        }

        /** Record when the idle teammate shuts down (null: clear it). */
        record SetIdleDeadline(Instant deadline) implements Action {
        }

        /** Mark the teammate shut down in the registry, with why. */
        record MarkShutdown(String reason) implements Action {
        }

        /** Publish {@code teammate_phase}. */
        record AnnouncePhase(Phase phase, String reason) implements Action {
        }

        /** Run a turn on the pending inbox items. */
        record RunTurn() implements Action {
        }

        /** Park until an input (or the deadline, when not null). */
        record Park(Instant deadline) implements Action {
        }
    }

    /** The next phase and the actions, in the order they are carried out. */
    public record Decision(Phase phase, List<Action> actions) {
        public Decision {
            Objects.requireNonNull(phase, "phase");
            actions = List.copyOf(actions);
        }
    }

    private final Duration idleTimeout;

    public TeammateLifecycle(Duration idleTimeout) {
        if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("cohort.teammate.idle-timeout must be positive, was " + idleTimeout);
        }
        this.idleTimeout = idleTimeout;
    }

    /** The reason an idle teammate shut down. */
    public String idleReason() {
        return "idle for " + idleTimeout;
    }

    public Decision next(Phase phase, Input input) {
        return switch (input) {
            case Input.TurnEnded t -> turnEnded(t);
            case Input.Check c -> check(phase, c);
        };
    }

    private Decision turnEnded(Input.TurnEnded t) {
        String status = status(t.reason());
        String summary = summary(t.text(), status);
        String reason = TeammateResult.COMPLETED.equals(status) ? null : reason(t.reason(), t.text());
        if (TeammateResult.BUDGET_EXCEEDED.equals(status)) {
            String why = "budget_exceeded: " + reason;
            return new Decision(Phase.SHUTDOWN, List.of(new Action.SendResult(t.turnId(), status, reason, summary),
                    new Action.MarkShutdown(why), new Action.AnnouncePhase(Phase.SHUTDOWN, why)));
        }
        return new Decision(Phase.IDLE, List.of(new Action.SendResult(t.turnId(), status, reason, summary),
                new Action.SetIdleDeadline(t.now().plus(idleTimeout)), new Action.AnnouncePhase(Phase.IDLE, null)));
    }

    private Decision check(Phase phase, Input.Check c) {
        if (phase == Phase.SHUTDOWN) {
            return new Decision(Phase.SHUTDOWN, List.of(new Action.Park(null)));
        }
        if (c.inputPending()) {
            return new Decision(Phase.WORKING, List.of(new Action.SetIdleDeadline(null),
                    new Action.AnnouncePhase(Phase.WORKING, null), new Action.RunTurn()));
        }
        if (c.idleDeadline() == null) {
            Instant d = c.now().plus(idleTimeout);
            return new Decision(Phase.IDLE, List.of(new Action.SetIdleDeadline(d), new Action.Park(d)));
        }
        if (!c.idleDeadline().isAfter(c.now())) {
            String why = idleReason();
            return new Decision(Phase.SHUTDOWN, List.of(
                    new Action.SendResult(null, TeammateResult.SHUTDOWN, why, "Shut down: " + why + " with nothing to do."),
                    new Action.MarkShutdown(why), new Action.AnnouncePhase(Phase.SHUTDOWN, why), new Action.Park(null)));
        }
        return new Decision(Phase.IDLE, List.of(new Action.Park(c.idleDeadline())));
    }

    /** The result status of a turn that ended for {@code reason}. */
    static String status(StopReason reason) {
        return switch (reason) {
            case COMPLETED -> TeammateResult.COMPLETED;
            case MAX_MODEL_CALLS -> TeammateResult.MAX_ROUNDS;
            case BUDGET_EXCEEDED -> TeammateResult.BUDGET_EXCEEDED;
            case CANCELLED -> TeammateResult.INTERRUPTED;
            case STUCK, ERROR -> TeammateResult.FAILED;
            case PARKED, DETACHED -> throw new IllegalArgumentException("a " + reason.wire() + " turn has not ended");
        };
    }

    private static String reason(StopReason reason, String text) {
        return text == null || text.isBlank() ? "the turn ended: " + reason.wire() : text.strip();
    }

    /** The final answer, or a sentence saying why there is none. */
    static String summary(String text, String status) {
        if (text != null && !text.isBlank()) {
            return text.strip();
        }
        return "The turn ended (" + status + ") without a final answer.";
    }
}

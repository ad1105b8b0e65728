package dev.cohort.teammate.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.engine.StopReason;
import dev.cohort.teammate.lifecycle.TeammateLifecycle;
import dev.cohort.teammate.lifecycle.TeammateLifecycle.Action;
import dev.cohort.teammate.lifecycle.TeammateLifecycle.Decision;
import dev.cohort.teammate.lifecycle.TeammateLifecycle.Input;
import dev.cohort.teammate.lifecycle.TeammateLifecycle.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lifecycle as a pure function: every row of its table. */
class TeammateLifecycleTest {

    static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    final TeammateLifecycle lifecycle = new TeammateLifecycle(Duration.ofMinutes(10));

    @Test
    void aCompletedTurnSendsItsFinalTextAndGoesIdleWithADeadline() {
        Decision d = lifecycle.next(Phase.WORKING, new Input.TurnEnded("t1", StopReason.COMPLETED, " done: 3 files ", NOW));
        assertThat(d).isEqualTo(new Decision(Phase.IDLE, List.of(
                new Action.SendResult("t1", "completed", null, "done: 3 files"),
                new Action.SetIdleDeadline(NOW.plus(Duration.ofMinutes(10))),
                new Action.AnnouncePhase(Phase.IDLE, null))));
    }

    @Test
    void eachWayATurnEndsHasItsResultStatus() {
        assertThat(List.of(StopReason.COMPLETED, StopReason.MAX_MODEL_CALLS, StopReason.BUDGET_EXCEEDED,
                StopReason.CANCELLED, StopReason.STUCK, StopReason.ERROR).stream().map(TeammateLifecycle::status).toList())
                .containsExactly("completed", "max_rounds", "budget_exceeded", "interrupted", "failed", "failed");
        assertThatThrownBy(() -> TeammateLifecycle.status(StopReason.PARKED)).hasMessageContaining("has not ended");
    }

    @Test
    void aTurnWithoutFinalTextSaysWhyInTheSummary() {
        Decision d = lifecycle.next(Phase.WORKING, new Input.TurnEnded("t2", StopReason.MAX_MODEL_CALLS, "", NOW));
        assertThat(d.actions().get(0)).isEqualTo(new Action.SendResult("t2", "max_rounds", "the turn ended: max_model_calls",
                "The turn ended (max_rounds) without a final answer."));
        assertThat(d.phase()).isEqualTo(Phase.IDLE);
    }

    @Test
    void aTurnOverBudgetShutsTheTeammateDownWithThatReason() {
        Decision d = lifecycle.next(Phase.WORKING,
                new Input.TurnEnded("t3", StopReason.BUDGET_EXCEEDED, "the team used 1200 of 1000 tokens", NOW));
        assertThat(d).isEqualTo(new Decision(Phase.SHUTDOWN, List.of(
                new Action.SendResult("t3", "budget_exceeded", "the team used 1200 of 1000 tokens",
                        "the team used 1200 of 1000 tokens"),
                new Action.MarkShutdown("budget_exceeded: the team used 1200 of 1000 tokens"),
                new Action.AnnouncePhase(Phase.SHUTDOWN, "budget_exceeded: the team used 1200 of 1000 tokens"))));
    }

    @Test
    void aPendingInboxItemWakesAnIdleTeammateToWork() {
        Decision d = lifecycle.next(Phase.IDLE, new Input.Check(true, NOW.plusSeconds(5), NOW));
        assertThat(d).isEqualTo(new Decision(Phase.WORKING, List.of(new Action.SetIdleDeadline(null),
                new Action.AnnouncePhase(Phase.WORKING, null), new Action.RunTurn())));
    }

    @Test
    void aSpuriousWakeUpKeepsTheDeadlineItHad() {
        Instant deadline = NOW.plusSeconds(42);
        assertThat(lifecycle.next(Phase.IDLE, new Input.Check(false, deadline, NOW)))
                .isEqualTo(new Decision(Phase.IDLE, List.of(new Action.Park(deadline))));
    }

    @Test
    void anIdleTeammateWithoutDeadlineGetsOne() {
        Instant deadline = NOW.plus(Duration.ofMinutes(10));
        assertThat(lifecycle.next(Phase.IDLE, new Input.Check(false, null, NOW)))
                .isEqualTo(new Decision(Phase.IDLE, List.of(new Action.SetIdleDeadline(deadline), new Action.Park(deadline))));
    }

    @Test
    void thePassedDeadlineShutsTheTeammateDownAndTellsTheLead() {
        Decision d = lifecycle.next(Phase.IDLE, new Input.Check(false, NOW, NOW));
        assertThat(d).isEqualTo(new Decision(Phase.SHUTDOWN, List.of(
                new Action.SendResult(null, "shutdown", "idle for PT10M", "Shut down: idle for PT10M with nothing to do."),
                new Action.MarkShutdown("idle for PT10M"), new Action.AnnouncePhase(Phase.SHUTDOWN, "idle for PT10M"),
                new Action.Park(null))));
    }

    @Test
    void aShutDownTeammateStaysParkedWhateverArrives() {
        assertThat(lifecycle.next(Phase.SHUTDOWN, new Input.Check(true, null, NOW)))
                .isEqualTo(new Decision(Phase.SHUTDOWN, List.of(new Action.Park(null))));
    }

    @Test
    void aZeroIdleTimeoutIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> new TeammateLifecycle(Duration.ZERO))
                .hasMessage("cohort.teammate.idle-timeout must be positive, was PT0S");
    }
}

package dev.cohort.core.host;

import static dev.cohort.core.host.HostFixture.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.testing.InMemoryAgentStore;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ParkedFleet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared agent host in-process: fencing between two hosts on one store, hand-over at a step boundary,
 * the running-turn cap, parked phases woken by the sweeper (settled waits, deadlines) and by inbox items, interrupt of
 * a parked turn, and a failure recorded with the actor's own version. No timing: the test holds the {@code step} tool
 * inside its run to put a turn where it wants it, and drives the sweeper itself with its own clock.
 */
class AgentHostTest {
    private static final Duration WAIT = Duration.ofMinutes(2);
    private final HostFixture f = new HostFixture();
    private final AgentKey a = key("a");
    private AgentHost one;
    private AgentHost two;

    @AfterEach
    void stop() {
        f.step.hold = null;
        for (AgentHost h : new AgentHost[] {one, two}) {
            if (h != null) {
                h.close();
            }
        }
    }

    private static String lastText(AgentState s) {
        List<Message> m = s.messages();
        return m.get(m.size() - 1).content();
    }

    @Test
    void aWokenAgentRunsItsQueuedInputsAsTurnsAndThenHoldsNoThread() {
        one = f.host("one", 4);
        f.program.send(a, "first");
        f.program.send(a, "second");
        one.wake(a);

        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).size() == 2 && !one.hosting(a));
        assertThat(f.program.stoppedOf(a)).containsExactly("completed", "completed");
        assertThat(f.runsOf("a")).isEqualTo(2);
        InMemoryAgentStore.Row row = f.store.row(a);
        assertThat(row.phase()).isEqualTo(Phase.IDLE);
        assertThat(row.owner()).isEqualTo("one");
        assertThat(lastText(f.store.state(a))).isEqualTo("done: step 2 of a");
    }

    @Test
    void afterATakeoverTheOldOwnersSaveIsRefusedAndTheNewOwnersStateSurvives() throws Exception {
        one = f.host("one", 4);
        two = f.host("two", 4);
        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue(); // one is inside the tool call

        // two takes the agent over (a rebalance that did not wait for one) and resumes the saved turn
        CountDownLatch held = f.step.hold;
        f.step.hold = null;
        two.adopt(List.of(a));
        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).contains("completed") && !two.hosting(a));
        AgentState twos = f.store.state(a);
        long twosVersion = f.store.row(a).version();
        assertThat(f.store.row(a).owner()).isEqualTo("two");

        held.countDown(); // one's call returns: its save is refused, and one lets the agent go
        await().atMost(WAIT).until(() -> !one.hosting(a));
        assertThat(f.store.row(a).version()).isEqualTo(twosVersion);
        assertThat(f.store.state(a).toJson()).isEqualTo(twos.toJson());
        assertThat(f.program.stoppedOf(a)).containsExactly("completed");
        assertThat(f.program.abandoned).isEmpty();
    }

    @Test
    void aDetachedTurnStopsAtItsNextStepStaysInProgressAndTheNewOwnerCompletesItRunningEachCallOnce() throws Exception {
        one = f.host("one", 4);
        two = f.host("two", 4);
        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue();

        // asked first without waiting (the agent is inside its step, so it is not out yet), then released and waited for
        assertThat(one.detach(List.of(a), Duration.ZERO)).isEmpty();
        CompletableFuture<Set<AgentKey>> handedOver = CompletableFuture.supplyAsync(() -> one.detach(List.of(a), WAIT));
        f.step.hold.countDown();
        assertThat(handedOver.get(2, TimeUnit.MINUTES)).containsExactly(a);
        assertThat(f.program.stoppedOf(a)).containsExactly("detached");
        AgentState saved = f.store.state(a);
        assertThat(saved.turn()).as("the turn stays in progress, with the call's result saved").isNotNull();
        assertThat(lastText(saved)).isEqualTo("step 1 of a");
        assertThat(f.store.row(a).phase()).isEqualTo(Phase.WORKING);

        // a late wake-up on the old owner is ignored: its thread (which may still be leaving the detached turn: the
        // hand-over waits for the turn, not for the thread) ends and no turn runs there again
        one.wake(a);
        await().atMost(WAIT).until(() -> !one.hosting(a));
        assertThat(f.program.stoppedOf(a)).containsExactly("detached");
        two.adopt(List.of(a));
        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).contains("completed") && !two.hosting(a));
        assertThat(f.runsOf("a")).as("the call whose result was saved is not run again").isEqualTo(1);
        assertThat(lastText(f.store.state(a))).isEqualTo("done: step 1 of a");
        assertThat(f.store.state(a).turn()).isNull();
    }

    @Test
    void beyondTheRunningTurnCapAWokenAgentWaitsForASlotInsteadOfFailing() throws Exception {
        one = f.host("one", 1);
        AgentKey b = key("b");
        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        f.program.send(b, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue();
        int callsOfA = f.modelCalls.get();
        one.wake(b);
        await().atMost(WAIT).until(() -> one.turnSlots().getQueueLength() == 1);
        assertThat(one.runningTurns()).isEqualTo(1);
        assertThat(f.modelCalls.get()).as("b has not called the model").isEqualTo(callsOfA);
        assertThat(f.store.row(b)).as("b was not even adopted").isNull();

        f.step.hold.countDown();
        await().atMost(WAIT).until(() -> f.program.stoppedOf(b).contains("completed"));
        assertThat(f.program.stoppedOf(a)).containsExactly("completed");
        assertThat(f.program.abandoned).isEmpty();
    }

    @Test
    void anIdleAgentWithADeadlineIsSavedIdleHoldsNoThreadAndTheSweeperWakesItOnceItPassed() {
        one = f.host("one", 4);
        f.program.sleep = Park.idleUntil(f.clock.instant().plus(Duration.ofMinutes(5)));
        one.wake(a);
        await().atMost(WAIT).until(() -> f.program.nextCalls.get() == 1 && !one.hosting(a));
        assertThat(f.store.row(a).park()).isEqualTo(f.program.sleep);
        assertThat(one.parkedOn(a)).contains(f.program.sleep);

        one.sweep();
        assertThat(f.program.nextCalls.get()).as("not yet due").isEqualTo(1);
        f.program.sleep = Park.IDLE;
        f.clock.advance(Duration.ofMinutes(5));
        one.sweep();
        await().atMost(WAIT).until(() -> f.program.nextCalls.get() == 2 && !one.hosting(a));
        assertThat(one.parkedOn(a)).isEmpty();
        assertThat(f.store.row(a).park()).isEqualTo(Park.IDLE);
    }

    @Test
    void aTurnParkedOnAnApprovalHoldsNoThreadAndOneSweepForAllParkedAgentsWakesThoseAnswered() {
        one = f.host("one", 4);
        AgentKey b = key("b");
        f.program.send(a, "discard build/");
        f.program.send(b, "discard build/");
        one.wake(a);
        one.wake(b);
        await().atMost(WAIT).until(() -> one.parkedCount() == 2 && !one.hosting(a) && !one.hosting(b));
        Park pa = one.parkedOn(a).orElseThrow();
        assertThat(pa.phase()).isEqualTo(Phase.WAITING_APPROVAL);
        assertThat(f.store.row(a).phase()).isEqualTo(Phase.WAITING_APPROVAL);
        assertThat(f.store.row(a).park().waitingFor()).isEqualTo(pa.waitingFor());
        assertThat(f.discardsOf("a")).isZero();

        f.approvals.answer(pa.waitingFor(), ApprovalGateway.Decision.approve());
        f.program.settled.add(pa.waitingFor());
        one.sweep();
        assertThat(f.program.settledCalls.get()).as("one query for every parked agent").isEqualTo(1);
        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).contains("completed"));
        assertThat(f.discardsOf("a")).isEqualTo(1);
        assertThat(f.discardsOf("b")).as("b's approval is not answered").isZero();
        assertThat(one.parkedOn(b)).isPresent();
    }

    @Test
    void anyInboxItemWakesAParkedAgentWhichParksAgainWhileItsApprovalIsUnanswered() {
        one = f.host("one", 4);
        f.program.send(a, "discard build/");
        one.wake(a);
        await().atMost(WAIT).until(() -> one.parkedCount() == 1 && !one.hosting(a));
        int asked = f.approvals.asked.size();

        one.wake(a);
        await().atMost(WAIT).until(() -> f.approvals.asked.size() > asked && one.parkedCount() == 1 && !one.hosting(a));
        assertThat(f.program.stoppedOf(a)).containsExactly("parked", "parked");
        assertThat(f.discardsOf("a")).isZero();
    }

    @Test
    void busyCountsAgentsInATurnOrParkedOnAnApprovalButNotIdleOnesAndStateCountsEachOnce() throws Exception {
        one = f.host("one", 4);
        AgentKey b = key("b");
        AgentKey idle = key("idle");
        f.program.sleep = Park.idleUntil(f.clock.instant().plus(Duration.ofMinutes(5)));
        one.wake(idle);
        await().atMost(WAIT).until(() -> one.parkedCount() == 1 && !one.hosting(idle));
        assertThat(one.busyCount()).as("an idle agent, even with a deadline").isZero();
        assertThat(one.stateCounts()).isEqualTo(Map.of("running", 0, "parked", 0, "idle", 1));

        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue();
        assertThat(one.busyCount()).as("a is inside its turn").isEqualTo(1);
        assertThat(one.stateCounts()).isEqualTo(Map.of("running", 1, "parked", 0, "idle", 1));

        f.program.send(b, "discard build/");
        one.wake(b);
        await().atMost(WAIT).until(() -> one.parkedOn(b).isPresent() && !one.hosting(b));
        assertThat(one.busyCount()).as("a working, b waiting for its approval").isEqualTo(2);
        assertThat(one.stateCounts()).isEqualTo(Map.of("running", 1, "parked", 1, "idle", 1));

        f.step.hold.countDown();
        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).contains("completed") && !one.hosting(a));
        assertThat(one.busyCount()).as("a idle again, b still waiting").isEqualTo(1);
        assertThat(one.stateCounts()).as("the gauge cohort_teammates{state}").isEqualTo(Map.of("running", 0, "parked", 1,
                "idle", 2));
    }

    @Test
    void anInterruptEndsAParkedTurnCancelledWithoutRunningTheWaitingCall() {
        one = f.host("one", 4);
        f.program.send(a, "discard build/");
        one.wake(a);
        await().atMost(WAIT).until(() -> one.parkedCount() == 1 && !one.hosting(a));

        assertThat(one.interrupt(a)).isTrue();
        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).contains("cancelled") && !one.hosting(a));
        assertThat(f.discardsOf("a")).isZero();
        assertThat(f.store.state(a).turn()).isNull();
        assertThat(one.parkedCount()).isZero();
        assertThat(one.interrupt(key("nobody"))).isFalse();
    }

    @Test
    void aFailureAfterATakeoverIsRecordedWithTheActorsOwnVersionSoTheNewOwnersStateIsLeftAlone() throws Exception {
        one = f.host("one", 4);
        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue();
        f.store.adopt(a, "two"); // another replica adopted it
        long theirs = f.store.row(a).version();

        one.abandonTurn(a, new IllegalStateException("boom"));
        assertThat(f.store.row(a).version()).isEqualTo(theirs);
        assertThat(f.store.row(a).owner()).isEqualTo("two");
        assertThat(f.store.state(a).turn()).as("the new owner's turn is kept").isNotNull();
        assertThat(f.program.abandoned).isEmpty();
        f.step.hold.countDown();
        await().atMost(WAIT).until(() -> !one.hosting(a));
    }

    @Test
    void aFailureOfItsOwnEndsTheTurnAsAbandonedAndTheAgentTakesItsNextInput() throws Exception {
        one = f.host("one", 4);
        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue();
        String turnId = f.store.state(a).turn().turnId();

        one.abandonTurn(a, new IllegalStateException("boom"));
        assertThat(f.store.state(a).turn()).isNull();
        assertThat(f.program.abandoned).singleElement().asString().startsWith("a " + turnId + " the turn failed")
                .contains("boom");
        f.step.hold.countDown();
        await().atMost(WAIT).until(() -> !one.hosting(a));
    }

    @Test
    void aTurnWhoseStoreGoesDownIsNotAbandonedAndResumesFromItsLastSaveOnceTheStoreAnswersWithoutNewInput()
            throws Exception {
        one = f.host("one", 4);
        f.step.hold = new CountDownLatch(1);
        f.program.send(a, "work");
        one.wake(a);
        assertThat(f.step.entered.tryAcquire(2, TimeUnit.MINUTES)).isTrue();
        String turnId = f.store.state(a).turn().turnId();

        f.storeDown = true;
        f.step.hold.countDown(); // the call's result cannot be saved
        // it keeps trying (its re-adoption is refused too) and abandons nothing
        await().atMost(WAIT).until(() -> one.storeRetries() >= 2 && f.refusedStoreCalls.get() >= 2);
        assertThat(f.program.abandoned).isEmpty();
        assertThat(f.store.state(a).turn().turnId()).as("the stored turn is still in progress").isEqualTo(turnId);

        f.storeDown = false; // no new input: the retry alone resumes it
        await().atMost(WAIT).until(() -> f.program.stoppedOf(a).contains("completed") && !one.hosting(a));
        assertThat(f.program.abandoned).isEmpty();
        assertThat(f.store.state(a).turn()).isNull();
        assertThat(lastText(f.store.state(a))).startsWith("done: step");
    }

    @Test
    void anAgentWhoseTeamIsGoneIsNeitherAdoptedNorRun() {
        one = f.host("one", 4);
        f.program.gone.add(a);
        f.program.send(a, "work");
        one.wake(a);
        await().atMost(WAIT).until(() -> !one.hosting(a));
        assertThat(f.store.row(a)).isNull();
        assertThat(f.program.nextCalls.get()).isZero();
    }

    @Test
    void badSettingsAreRefusedWithTheKeyToFix() {
        assertThatThrownBy(() -> HostSettings.defaults("x").withMaxRunningTurns(0))
                .hasMessageContaining("cohort.host.max-running-turns must be at least 1");
        assertThatThrownBy(() -> HostSettings.defaults("x").withSweepInterval(Duration.ZERO))
                .hasMessageContaining("cohort.host.sweep-interval must be positive");
        assertThatThrownBy(() -> HostSettings.defaults(" ")).hasMessageContaining("instance id");
        assertThatThrownBy(() -> new AgentKey("t", "")).hasMessageContaining("a team and a name");
        assertThatThrownBy(() -> new Park(Phase.WORKING, null, null)).hasMessageContaining("not parked");
    }
}

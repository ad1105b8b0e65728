package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1,000 agents parked on approvals in one JVM hold no thread (platform and virtual thread
 * counts back to the baseline), and each resumes, in a new session from its saved JSON, to its own answer. The
 * probes are shown to fail when a gateway blocks (the engine's old design). In-process, no HTTP.
 */
class ParkedAgentsTest {
    private static final int AGENTS = 1_000;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dumps;
    private final AtomicInteger dumpNo = new AtomicInteger();

    @Test
    void aThousandAgentsParkedOnApprovalsHoldNoThreadAndEachResumesToItsOwnAnswer() throws Exception {
        ParkedFleet fleet = new ParkedFleet();
        warmUp(new ParkedFleet());
        int platformBaseline = platformThreads();
        int virtualBaseline = virtualThreadsInJvm();
        StartedThreads threads = new StartedThreads();
        List<String> agents = IntStream.range(0, AGENTS).mapToObj(i -> "a" + i).toList();

        Map<String, TurnResult> parked = runAll(agents, threads,
                a -> fleet.engine.open(fleet.context(a), null).run(ParkedFleet.REQUEST));

        assertThat(threads.started()).isEqualTo(AGENTS);
        for (String a : agents) {
            TurnResult r = parked.get(a);
            assertThat(r.reason()).as(a).isEqualTo(StopReason.PARKED);
            assertThat(r.inProgress()).as(a).isTrue();
            AgentState.TurnProgress turn = AgentState.fromJson(fleet.saved.get(a)).turn();
            assertThat(turn.turnId()).as(a).isEqualTo(r.turnId());
            assertThat(turn.waiting()).as(a).isEqualTo(new AgentState.Wait(AgentState.Wait.APPROVAL,
                    approvalId(a, r.turnId()), ParkedFleet.callId(a)));
        }
        assertThat(fleet.runs).as("no destructive call ran while parked").isEmpty();
        assertNoThreadHeld(threads, platformBaseline, virtualBaseline);

        // half approved, half denied; every agent resumes from its saved JSON in a new session
        for (int i = 0; i < AGENTS; i++) {
            String a = agents.get(i);
            fleet.gateway.answer(approvalId(a, parked.get(a).turnId()), i % 2 == 0
                    ? ApprovalGateway.Decision.approve() : ApprovalGateway.Decision.deny("not now, " + a));
        }
        Map<String, TurnResult> resumed = runAll(agents, threads,
                a -> fleet.engine.open(fleet.context(a), AgentState.fromJson(fleet.saved.get(a))).resume());

        for (int i = 0; i < AGENTS; i++) {
            String a = agents.get(i);
            TurnResult r = resumed.get(a);
            assertThat(r.reason()).as(a).isEqualTo(StopReason.COMPLETED);
            assertThat(r.turnId()).as(a).isEqualTo(parked.get(a).turnId());
            assertThat(AgentState.fromJson(fleet.saved.get(a)).turn()).as(a + " idle after its turn").isNull();
            if (i % 2 == 0) {
                assertThat(fleet.runs.get(a)).as(a + " approved: ran once").hasValue(1);
                assertThat(fleet.seenByModel.get(a)).as(a).containsExactly("discarded build/ (run 1)");
            } else {
                assertThat(fleet.runs).as(a + " denied: never ran").doesNotContainKey(a);
                assertThat(fleet.seenByModel.get(a)).as(a).containsExactly("Error: permission denied: discarding the "
                        + "uncommitted work in build/ needed approval and it was refused (not now, " + a + ")");
            }
        }
        Map<String, List<ApprovalGateway.Request>> asked = fleet.gateway.asked.stream().collect(Collectors.groupingBy(ApprovalGateway.Request::agent));
        assertThat(asked).hasSize(AGENTS);
        asked.forEach((a, requests) -> assertThat(requests).as(a + ": asked at the park and at the resume only, "
                + "always about its own call").hasSize(2).allSatisfy(q -> {
                    assertThat(q.team()).isEqualTo(ParkedFleet.TEAM);
                    assertThat(q.callId()).isEqualTo(ParkedFleet.callId(a));
                    assertThat(q.turnId()).isEqualTo(parked.get(a).turnId());
                    assertThat(q.reason()).isEqualTo("discarding the uncommitted work in build/");
                }));
        assertNoThreadHeld(threads, platformBaseline, virtualBaseline);
    }

    @Test
    void aResumeBeforeTheAnswerParksAgainOnTheSameCallAndRunsNothing() {
        ParkedFleet fleet = new ParkedFleet();
        TurnResult first = fleet.engine.open(fleet.context("a"), null).run(ParkedFleet.REQUEST);
        AgentState.Wait wait = AgentState.fromJson(fleet.saved.get("a")).turn().waiting();

        AgentSession again = fleet.engine.open(fleet.context("a"), AgentState.fromJson(fleet.saved.get("a")));
        TurnResult second = again.resume();

        assertThat(second.reason()).isEqualTo(StopReason.PARKED);
        assertThat(second.turnId()).isEqualTo(first.turnId());
        assertThat(again.waiting()).contains(wait);
        assertThat(AgentState.fromJson(fleet.saved.get("a")).turn().waiting()).isEqualTo(wait);
        assertThat(fleet.runs).isEmpty();
        assertThat(fleet.gateway.asked).extracting(ApprovalGateway.Request::callId)
                .containsExactly(ParkedFleet.callId("a"), ParkedFleet.callId("a"));

        fleet.gateway.answer(wait.id(), ApprovalGateway.Decision.approve());
        TurnResult third = fleet.engine.open(fleet.context("a"), AgentState.fromJson(fleet.saved.get("a"))).resume();

        assertThat(third.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(fleet.runs.get("a")).hasValue(1);
    }

    @Test
    void aCancelBeforeResumeEndsTheParkedTurnWithoutRunningTheCall() {
        ParkedFleet fleet = new ParkedFleet();
        fleet.engine.open(fleet.context("a"), null).run(ParkedFleet.REQUEST);
        fleet.gateway.answer(AgentState.fromJson(fleet.saved.get("a")).turn().waiting().id(),
                ApprovalGateway.Decision.approve());

        AgentSession s = fleet.engine.open(fleet.context("a"), AgentState.fromJson(fleet.saved.get("a")));
        s.cancel();
        TurnResult r = s.resume();

        assertThat(r.reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(fleet.runs).isEmpty();
        assertThat(fleet.gateway.asked).hasSize(1);
        AgentState after = AgentState.fromJson(fleet.saved.get("a"));
        assertThat(after.turn()).isNull();
        assertThat(after.messages().get(after.messages().size() - 1)).satisfies(m -> {
            assertThat(m.toolCallId()).isEqualTo(ParkedFleet.callId("a"));
            assertThat(m.content()).isEqualTo("not run: the turn was cancelled");
        });
    }

    @Test
    void theThreadProbesSeeAgentsWhoseGatewayBlocksOnVirtualThreads() throws Exception {
        int n = 50;
        BlockingGateway gate = new BlockingGateway();
        ParkedFleet fleet = new ParkedFleet(gate);
        StartedThreads threads = new StartedThreads();
        List<Future<TurnResult>> running = new ArrayList<>();
        try (ExecutorService ex = Executors.newThreadPerTaskExecutor(threads.virtual)) {
            for (int i = 0; i < n; i++) {
                String a = "b" + i;
                running.add(ex.submit(() -> fleet.engine.open(fleet.context(a), null).run(ParkedFleet.REQUEST)));
            }
            await().atMost(DEADLINE).pollInSameThread().until(() -> gate.waiting.get() == n);

            assertThat(threads.alive()).as("threads held by blocked approvals").isEqualTo(n);
            // the JVM-wide probe sees them too (other tests' threads come and go, so no baseline arithmetic here)
            assertThat(virtualThreadsInJvm()).isGreaterThanOrEqualTo(n);
            gate.release.countDown();
        }
        for (Future<TurnResult> f : running) {
            assertThat(f.get().reason()).isEqualTo(StopReason.COMPLETED);
        }
        assertThat(fleet.runs).hasSize(n);
        await().atMost(DEADLINE).pollInSameThread().until(() -> threads.alive() == 0);
    }

    @Test
    void thePlatformThreadProbeSeesAgentsWhoseGatewayBlocksOnPlatformThreads() throws Exception {
        int n = 20;
        BlockingGateway gate = new BlockingGateway();
        ParkedFleet fleet = new ParkedFleet(gate);
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String a = "p" + i;
            started.add(Thread.ofPlatform().name(a).start(() -> fleet.engine.open(fleet.context(a), null)
                    .run(ParkedFleet.REQUEST)));
        }
        try {
            await().atMost(DEADLINE).pollInSameThread().until(() -> gate.waiting.get() == n);

            // each one is held, waiting for the human; the JVM-wide probe counts them (other pools' threads come and
            // go, e.g. idle carriers retire, so no baseline arithmetic here)
            await().atMost(DEADLINE).pollInSameThread().untilAsserted(() -> assertThat(started)
                    .as("platform threads held by blocked approvals").allMatch(t -> t.isAlive()
                            && t.getState() == Thread.State.WAITING));
            assertThat(platformThreads()).isGreaterThanOrEqualTo(n);
        } finally {
            gate.release.countDown();
        }
        for (Thread t : started) {
            t.join(DEADLINE);
        }
        assertThat(started).noneMatch(Thread::isAlive);
        assertThat(fleet.runs).hasSize(n);
    }

    // ---- probes ---------------------------------------------------------------------------------------------------

    private void assertNoThreadHeld(StartedThreads threads, int platformBaseline, int virtualBaseline) {
        // a thread whose task returned may take a moment to exit: wait (with a deadline) for the counts to come back
        await().atMost(DEADLINE).pollInSameThread().untilAsserted(() -> {
            assertThat(threads.alive()).as("virtual threads started by the test still alive").isZero();
            assertThat(virtualThreadsInJvm()).as("virtual threads in the JVM").isLessThanOrEqualTo(virtualBaseline);
            assertThat(platformThreads()).as("platform threads").isLessThanOrEqualTo(platformBaseline);
        });
    }

    /** Live platform threads (ThreadMXBean does not count virtual threads). */
    private static int platformThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** Every virtual thread of the JVM, from a JSON thread dump (which lists virtual threads, unlike ThreadMXBean). */
    private int virtualThreadsInJvm() {
        Path file = dumps.resolve("threads-" + dumpNo.incrementAndGet() + ".json");
        try {
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpThreads(file.toString(),
                    HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            JsonNode dump = new ObjectMapper().readTree(file.toFile());
            int n = 0;
            for (JsonNode container : dump.path("threadDump").path("threadContainers")) {
                for (JsonNode t : container.path("threads")) {
                    n += t.path("virtual").asBoolean(false) ? 1 : 0;
                }
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Loads the classes and starts the virtual-thread scheduler's carriers, so that the baseline is the steady state
     * of a JVM that has already run turns.
     */
    private void warmUp(ParkedFleet fleet) throws Exception {
        List<String> agents = IntStream.range(0, 20).mapToObj(i -> "w" + i).toList();
        StartedThreads threads = new StartedThreads();
        Map<String, TurnResult> parked = runAll(agents, threads,
                a -> fleet.engine.open(fleet.context(a), null).run(ParkedFleet.REQUEST));
        agents.forEach(a -> fleet.gateway.answer(approvalId(a, parked.get(a).turnId()),
                ApprovalGateway.Decision.approve()));
        runAll(agents, threads, a -> fleet.engine.open(fleet.context(a), AgentState.fromJson(fleet.saved.get(a)))
                .resume());
        await().atMost(DEADLINE).pollInSameThread().until(() -> threads.alive() == 0);
    }

    /** Runs one turn per agent, each on its own virtual thread from {@code threads}; waits for all. */
    private static Map<String, TurnResult> runAll(List<String> agents, StartedThreads threads,
            Function<String, TurnResult> turn) throws InterruptedException, ExecutionException {
        Map<String, Future<TurnResult>> futures = new LinkedHashMap<>();
        try (ExecutorService ex = Executors.newThreadPerTaskExecutor(threads.virtual)) {
            for (String a : agents) {
                futures.put(a, ex.submit(() -> turn.apply(a)));
            }
        }
        Map<String, TurnResult> results = new HashMap<>();
        for (var e : futures.entrySet()) {
            results.put(e.getKey(), e.getValue().get());
        }
        return results;
    }

    private static String approvalId(String agent, String turnId) {
        return ParkedFleet.TEAM + "/" + agent + "/" + turnId + "/" + ParkedFleet.callId(agent);
    }

    /** Virtual threads started by the test, kept so that the test can ask whether each is still alive. */
    private static final class StartedThreads {
        private final Queue<Thread> all = new ConcurrentLinkedQueue<>();
        private final ThreadFactory base = Thread.ofVirtual().name("agent-", 0).factory();
        final ThreadFactory virtual = r -> {
            Thread t = base.newThread(r);
            all.add(t);
            return t;
        };

        long alive() {
            return all.stream().filter(Thread::isAlive).count();
        }

        int started() {
            return all.size();
        }
    }

    /** The old design: {@code check} holds the calling thread until someone answers. */
    private static final class BlockingGateway implements ApprovalGateway {
        final AtomicInteger waiting = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public Decision check(Request r) {
            waiting.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Decision.deny("interrupted");
            }
            return Decision.approve();
        }
    }
}

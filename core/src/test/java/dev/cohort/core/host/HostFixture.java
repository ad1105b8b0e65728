package dev.cohort.core.host;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.ParkedFleet;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.testing.InMemoryAgentStore;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * In-process wiring for the host's tests and benchmark: an in-memory store, a model that asks for one {@code step}
 * call per request (or the destructive call of {@link ParkedFleet} when the request says "discard") and then answers
 * with its result, a {@code step} tool the test can hold inside its run, and a program that takes queued inputs as
 * turns and otherwise sleeps as the test says.
 */
final class HostFixture {
    static final String TEAM = "t";

    final InMemoryAgentStore store = new InMemoryAgentStore();
    final ParkedFleet.Gateway approvals = new ParkedFleet.Gateway();
    final Program program = new Program();
    final StepTool step = new StepTool();
    final MutableClock clock = new MutableClock();
    final AtomicInteger modelCalls = new AtomicInteger();
    final AgentEngine engine;
    private final ParkedFleet fleet = new ParkedFleet(approvals);

    HostFixture() {
        engine = AgentEngine.builder().model(this::chat).tools(ToolRegistry.of(step, discardTool()))
                .approvals(approvals).bundledSkills(List.of()).build();
    }

    private Tool discardTool() {
        // the fleet's destructive tool, through its registry
        return fleet.engine.tools().find(ParkedFleet.TOOL).orElseThrow();
    }

    static AgentKey key(String name) {
        return new AgentKey(TEAM, name);
    }

    /** While set, every store call fails as a database that refuses connections does (SQLState 08001). */
    volatile boolean storeDown;
    final AtomicInteger refusedStoreCalls = new AtomicInteger();

    /** {@link #store}, failing while {@link #storeDown}. */
    private final AgentStore flaky = new AgentStore() {
        private void check(String what) {
            if (storeDown) {
                refusedStoreCalls.incrementAndGet();
                throw new IllegalStateException("cannot " + what + ": connection refused",
                        new SQLException("Connection to 127.0.0.1:5432 refused", "08001"));
            }
        }

        @Override
        public AgentRecord adopt(AgentKey key, String instance) {
            check("adopt agent " + key);
            return store.adopt(key, instance);
        }

        @Override
        public long save(AgentKey key, StepSave step, long expectedVersion) {
            check("save agent " + key);
            return store.save(key, step, expectedVersion);
        }

        @Override
        public long park(AgentKey key, Park park, long expectedVersion) {
            check("park agent " + key);
            return store.park(key, park, expectedVersion);
        }

        @Override
        public boolean unavailable(Throwable failure) {
            return store.unavailable(failure);
        }
    };

    AgentHost host(String instance, int maxRunningTurns) {
        return new AgentHost(engine, flaky, program, HostSettings.defaults(instance).withMaxRunningTurns(maxRunningTurns)
                .withSweepInterval(Duration.ofHours(1)).withHandoverTimeout(Duration.ofMinutes(2)).withClock(clock));
    }

    int runsOf(String agent) {
        AtomicInteger n = step.runs.get(agent);
        return n == null ? 0 : n.get();
    }

    int discardsOf(String agent) {
        AtomicInteger n = fleet.runs.get(agent);
        return n == null ? 0 : n.get();
    }

    private ModelClient.Reply chat(ModelClient.Request req) {
        modelCalls.incrementAndGet();
        Message last = req.messages().get(req.messages().size() - 1);
        if (last.role() == Message.Role.TOOL) {
            return new ModelClient.Reply("done: " + last.content(), List.of(), "stop", 100, 10, null);
        }
        String call = "c" + req.messages().size();
        if (last.content().contains("discard")) {
            String agent = req.agentId().substring(req.agentId().indexOf('/') + 1);
            return new ModelClient.Reply(null, List.of(new ModelToolCall(ParkedFleet.callId(agent), ParkedFleet.TOOL,
                    "{\"what\":\"build/\"}")), "tool_calls", 100, 10, null);
        }
        return new ModelClient.Reply(null, List.of(new ModelToolCall(call, StepTool.NAME, "{}")), "tool_calls", 100, 10,
                null);
    }

    /** A read-only tool; while {@link #hold} is set, a run waits inside until the test releases it. */
    static final class StepTool implements Tool {
        static final String NAME = "step";
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        volatile CountDownLatch hold;
        /** Released once per run that entered. */
        final Semaphore entered = new Semaphore(0);
        private final ToolSpecification spec = ToolSchemas.spec(NAME, "one step of work", ToolSchemas.object().build());

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public ToolSpecification spec() {
            return spec;
        }

        @Override
        public boolean isMutating() {
            return false;
        }

        @Override
        public PermissionSubject permissionSubject(ObjectNode args) {
            return PermissionSubject.NONE;
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            int n = runs.computeIfAbsent(ctx.agent(), a -> new AtomicInteger()).incrementAndGet();
            entered.release();
            CountDownLatch h = hold;
            if (h != null) {
                try {
                    h.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return ToolResult.ok("step " + n + " of " + ctx.agent());
        }
    }

    /** Takes queued inputs as turns; with none, sleeps as {@link #sleep} says. Records what the host told it. */
    final class Program implements AgentProgram {
        final Map<AgentKey, Queue<String>> inputs = new ConcurrentHashMap<>();
        final Queue<String> stopped = new ConcurrentLinkedQueue<>();
        final Queue<String> abandoned = new ConcurrentLinkedQueue<>();
        final Set<String> settled = ConcurrentHashMap.newKeySet();
        final AtomicInteger nextCalls = new AtomicInteger();
        final AtomicInteger settledCalls = new AtomicInteger();
        volatile Park sleep = Park.IDLE;
        final Set<AgentKey> gone = ConcurrentHashMap.newKeySet();
        /** Whether idle sessions may be kept ({@link AgentProgram#keepIdleSession}); off unless a test turns it on. */
        volatile boolean keep;
        /** Sessions opened (contexts asked for), per agent. */
        final Map<AgentKey, AtomicInteger> opened = new ConcurrentHashMap<>();

        int openedOf(AgentKey key) {
            AtomicInteger n = opened.get(key);
            return n == null ? 0 : n.get();
        }

        @Override
        public boolean keepIdleSession(AgentKey key) {
            return keep;
        }

        void send(AgentKey key, String text) {
            inputs.computeIfAbsent(key, k -> new ConcurrentLinkedQueue<>()).add(text);
        }

        List<String> stoppedOf(AgentKey key) {
            return stopped.stream().filter(s -> s.startsWith(key.name() + " ")).map(s -> s.substring(key.name().length() + 1))
                    .collect(Collectors.toList());
        }

        @Override
        public boolean exists(AgentKey key) {
            return !gone.contains(key);
        }

        @Override
        public AgentContext context(AgentKey key, AgentRecord record) {
            opened.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            return AgentContext.of(key.team(), key.name(), AgentRole.TEAMMATE, (tool, id, args, target) ->
                    ToolOutcome.failure("no workspace in these tests")).withAllowlist(Set.of(StepTool.NAME, ParkedFleet.TOOL));
        }

        @Override
        public Next next(AgentKey key, AgentSession session) {
            nextCalls.incrementAndGet();
            Queue<String> q = inputs.get(key);
            String text = q == null ? null : q.poll();
            return text == null ? Next.sleep(sleep) : Next.turn(text, "test", false, List.of());
        }

        @Override
        public void stopped(AgentKey key, TurnResult result) {
            stopped.add(key.name() + " " + result.reason().wire());
        }

        @Override
        public void abandoned(AgentKey key, String turnId, String message) {
            abandoned.add(key.name() + " " + turnId + " " + message);
        }

        @Override
        public Set<String> settled(Collection<String> waitingFor) {
            settledCalls.incrementAndGet();
            return waitingFor.stream().filter(settled::contains).collect(Collectors.toSet());
        }
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}

package dev.cohort.host.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.engine.EventSink;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.ParkedFleet;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentProgram;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.AgentStore;
import dev.cohort.core.host.HostSettings;
import dev.cohort.core.host.Next;
import dev.cohort.core.host.Park;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.devstack.pg.LocalPostgres;
import dev.cohort.host.store.PgAgentStore;
import dev.langchain4j.agent.tool.ToolSpecification;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The shared host's own cost, against a real PostgreSQL (devstack's), with a zero-latency
 * in-process model and no-op tool, so what is measured is the host, the engine and the database:
 * <ol>
 * <li>overhead per step (one model round: the reply saved, the tool run and its result saved, their events stored
 * with a per-team sequence as the lead's event log does), p50/p99, and the transactions per step;</li>
 * <li>1,000 agents parked on approvals in one host: heap after GC and live threads;</li>
 * <li>adopt-and-resume of 100 agents after a rebalance: their approvals answered, the old host detaches them, the
 * new one adopts them; time until all 100 turns completed.</li>
 * </ol>
 * Not a unit test. Run: {@code ./mvnw -B -o -q -pl agent-host -am test-compile dependency:build-classpath
 * -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test}, then {@code java -Xmx1g -cp
 * "$(cat agent-host/target/cp.txt):agent-host/target/classes:agent-host/target/test-classes"
 * dev.cohort.host.bench.HostBenchmark [rounds=2000] [parked=1000] [moved=100]}.
 */
public final class HostBenchmark {
    private static final double MIB = 1024.0 * 1024.0;
    private static final String TEAM = "bench";

    private HostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int parkedAgents = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int moved = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        System.out.printf("JDK %s, %d CPUs, max heap %.0f MiB%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() / MIB);
        try (LocalPostgres pg = LocalPostgres.start(0);
                AgroalDataSource ds = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                        .connectionPoolConfiguration(cp -> cp.minSize(4).maxSize(32).acquisitionTimeout(Duration.ofSeconds(30))
                                .connectionFactoryConfiguration(cf -> cf.jdbcUrl(pg.jdbcUrl())
                                        .principal(new NamePrincipal(pg.username()))
                                        .credential(new SimplePassword(pg.password())))))) {
            schema(ds);
            steps(ds, Math.max(200, rounds / 10), false); // warm-up
            steps(ds, rounds, true);
            parked(ds, parkedAgents);
            moved(ds, moved);
        }
    }

    // ---- 1. overhead per step -------------------------------------------------------------------------------

    private static void steps(AgroalDataSource ds, int rounds, boolean print) throws Exception {
        Counting counting = new Counting(ds);
        Bench b = new Bench(ds, counting, 20);
        AgentKey key = new AgentKey(TEAM, "steps-" + System.nanoTime());
        try (AgentHost host = b.host("one", 4)) {
            b.program.turns.put(key, new AtomicInteger(Math.max(1, rounds / 20)));
            host.wake(key);
            while (b.program.ended.get() < Math.max(1, rounds / 20)) {
                Thread.sleep(20);
            }
        }
        long[] gaps = b.model.gaps(key.id());
        if (!print) {
            return;
        }
        Arrays.sort(gaps);
        System.out.printf("1. host overhead per step (one model round), %d rounds in turns of 20 on one agent:%n",
                gaps.length);
        System.out.printf("   p50 %.2f ms, p99 %.2f ms, max %.2f ms; %.1f transactions per round (%d saves, %d events, "
                + "%d turns)%n", gaps[gaps.length / 2] / 1e6, gaps[(int) (gaps.length * 0.99)] / 1e6,
                gaps[gaps.length - 1] / 1e6, (counting.saves.get() + b.events.stored.get()) / (double) gaps.length,
                counting.saves.get(), b.events.stored.get(), b.program.ended.get());
        System.out.printf("   turns ended: %s%n", b.program.reasons);
    }

    // ---- 2. parked agents -----------------------------------------------------------------------------------

    private static void parked(AgroalDataSource ds, int n) throws Exception {
        Bench b = new Bench(ds, null, 0);
        List<AgentKey> keys = IntStream.range(0, n).mapToObj(i -> new AgentKey(TEAM, "parked-" + i)).toList();
        long base = heapAfterGc();
        int threadsBase = ManagementFactory.getThreadMXBean().getThreadCount();
        long t0 = System.nanoTime();
        try (AgentHost host = b.host("one", 64)) {
            for (AgentKey k : keys) {
                b.program.discard.add(k);
                host.wake(k);
            }
            while (host.parkedCount() < n || host.hostingCount() > 0) {
                Thread.sleep(20);
            }
            long took = System.nanoTime() - t0;
            long heap = heapAfterGc();
            System.out.printf("2. %d agents parked on approvals in one host (saved to PostgreSQL, sessions dropped): "
                    + "%.0f ms to park all; heap after GC %.1f MiB (baseline %.1f MiB, +%.1f KiB per agent); "
                    + "agents with a thread %d; platform threads %d (baseline %d)%n", n, took / 1e6, heap / MIB,
                    base / MIB, (heap - base) / 1024.0 / n, host.hostingCount(),
                    ManagementFactory.getThreadMXBean().getThreadCount(), threadsBase);
        }
    }

    // ---- 3. adopt and resume after a rebalance ------------------------------------------------------------------

    private static void moved(AgroalDataSource ds, int n) throws Exception {
        Bench b = new Bench(ds, null, 0);
        List<AgentKey> keys = IntStream.range(0, n).mapToObj(i -> new AgentKey(TEAM, "moved-" + i)).toList();
        try (AgentHost one = b.host("one", 64); AgentHost two = b.host("two", 64)) {
            for (AgentKey k : keys) {
                b.program.discard.add(k);
                one.wake(k);
            }
            while (one.parkedCount() < n || one.hostingCount() > 0) {
                Thread.sleep(20);
            }
            for (ApprovalGateway.Request r : b.approvals.asked) {
                b.approvals.answer(ParkedFleet.Gateway.approvalId(r), ApprovalGateway.Decision.approve());
            }
            one.detach(keys, Duration.ofSeconds(5));
            int before = b.program.ended.get();
            long t0 = System.nanoTime();
            two.adopt(keys);
            while (b.program.ended.get() < before + n) {
                Thread.sleep(5);
            }
            long took = System.nanoTime() - t0;
            System.out.printf("3. adopt-and-resume of %d agents after a rebalance (each adopted, its parked turn "
                    + "resumed, the approved call run and the turn completed): %.0f ms (%.1f ms per agent, 64 turn "
                    + "slots)%n", n, took / 1e6, took / 1e6 / n);
        }
    }

    // ---- wiring ---------------------------------------------------------------------------------------------

    private static void schema(AgroalDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS hb");
            s.execute("CREATE TABLE IF NOT EXISTS hb.agents (team TEXT NOT NULL, name TEXT NOT NULL, state JSONB NOT NULL, "
                    + "version BIGINT NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'idle', turn_id TEXT, waiting_for TEXT, "
                    + "deadline TIMESTAMPTZ, owner TEXT, updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (team, name))");
            s.execute("CREATE TABLE IF NOT EXISTS hb.agent_messages (team TEXT NOT NULL, name TEXT NOT NULL, idx INTEGER NOT NULL, "
                    + "message JSONB NOT NULL, PRIMARY KEY (team, name, idx), "
                    + "FOREIGN KEY (team, name) REFERENCES hb.agents (team, name) ON DELETE CASCADE)");
            // the lead's event log: a per-team sequence row, locked per event, and the event row
            s.execute("CREATE TABLE IF NOT EXISTS hb.event_seq (team TEXT PRIMARY KEY, seq BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS hb.events (team TEXT NOT NULL, seq BIGINT NOT NULL, id TEXT NOT NULL, "
                    + "agent TEXT, type TEXT NOT NULL, data JSONB NOT NULL, ts TIMESTAMPTZ NOT NULL DEFAULT now(), "
                    + "PRIMARY KEY (team, seq))");
            s.execute("INSERT INTO hb.event_seq VALUES ('" + TEAM + "', 0) ON CONFLICT DO NOTHING");
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        long prev = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(50);
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (Math.abs(prev - used) < 256 * 1024) {
                return used;
            }
            prev = used;
        }
        return prev;
    }

    /** A data source that counts the saves (what the store writes per step). */
    private static final class Counting {
        final AgroalDataSource ds;
        final AtomicLong saves = new AtomicLong();

        Counting(AgroalDataSource ds) {
            this.ds = ds;
        }
    }

    private static final class Bench {
        final AgroalDataSource ds;
        final Counting counting;
        final Model model;
        final StoredEvents events;
        final ParkedFleet.Gateway approvals = new ParkedFleet.Gateway();
        final Program program = new Program();
        final AgentEngine engine;
        final ParkedFleet fleet;

        Bench(AgroalDataSource ds, Counting counting, int roundsPerTurn) {
            this.ds = ds;
            this.counting = counting;
            this.model = new Model(roundsPerTurn);
            this.events = new StoredEvents(ds);
            this.fleet = new ParkedFleet(approvals);
            Tool discard = fleet.engine.tools().find(ParkedFleet.TOOL).orElseThrow();
            this.engine = AgentEngine.builder().model(model).tools(ToolRegistry.of(new Noop(), discard)).events(events)
                    .approvals(approvals).bundledSkills(List.of()).build();
        }

        AgentHost host(String instance, int slots) {
            PgAgentStore pg = new PgAgentStore(ds, "hb", null);
            AgentStore store = counting == null ? pg : new AgentStore() {
                @Override
                public AgentRecord adopt(AgentKey key, String i) {
                    return pg.adopt(key, i);
                }

                @Override
                public long save(AgentKey key, StepSave step, long v) {
                    counting.saves.incrementAndGet();
                    return pg.save(key, step, v);
                }

                @Override
                public long park(AgentKey key, Park park, long v) {
                    counting.saves.incrementAndGet();
                    return pg.park(key, park, v);
                }
            };
            return new AgentHost(engine, store, program, HostSettings.defaults(instance).withMaxRunningTurns(slots)
                    .withSweepInterval(Duration.ofHours(1))).start();
        }
    }

    /** Events stored as the lead's log stores them: the team's seq row locked and bumped, the event inserted. */
    private static final class StoredEvents implements EventSink {
        final AgroalDataSource ds;
        final AtomicLong stored = new AtomicLong();

        StoredEvents(AgroalDataSource ds) {
            this.ds = ds;
        }

        @Override
        public void emit(Event e) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                long seq;
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE hb.event_seq SET seq = seq + 1 WHERE team = ? RETURNING seq")) {
                    ps.setString(1, TEAM);
                    try (var rs = ps.executeQuery()) {
                        rs.next();
                        seq = rs.getLong(1);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO hb.events (team, seq, id, agent, type, data) VALUES (?, ?, ?, ?, ?, ?::jsonb)")) {
                    ps.setString(1, TEAM);
                    ps.setLong(2, seq);
                    ps.setString(3, e.id());
                    ps.setString(4, e.agent());
                    ps.setString(5, e.type().wire());
                    ps.setString(6, Json.write(e.data()));
                    ps.executeUpdate();
                }
                c.commit();
                stored.incrementAndGet();
            } catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    /** Asks for one no-op call per round, {@code roundsPerTurn} rounds a turn; records when each request came. */
    private static final class Model implements ModelClient {
        final int roundsPerTurn;
        /** Per agent: when each request came, negated for the first request of a turn. */
        final Map<String, Queue<Long>> calls = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> reasons = new ConcurrentHashMap<>();

        Model(int roundsPerTurn) {
            this.roundsPerTurn = roundsPerTurn;
        }

        long[] gaps(String agentId) {
            List<Long> t = new ArrayList<>(calls.getOrDefault(agentId, new ConcurrentLinkedQueue<>()));
            // a gap between two requests of the same turn is one round: reply saved, tool run, result saved, events
            List<Long> out = new ArrayList<>();
            for (int i = 1; i < t.size(); i++) {
                if (t.get(i) > 0) {
                    out.add(t.get(i) - Math.abs(t.get(i - 1)));
                }
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public Reply chat(Request req) {
            Message last = req.messages().get(req.messages().size() - 1);
            boolean first = last.role() == Message.Role.USER && "work".equals(last.content());
            calls.computeIfAbsent(req.agentId(), a -> new ConcurrentLinkedQueue<>()).add(first ? -System.nanoTime()
                    : System.nanoTime());
            String agent = req.agentId().substring(req.agentId().indexOf('/') + 1);
            if (last.content() != null && last.content().startsWith("discard")) {
                return new Reply(null, List.of(new ModelToolCall(ParkedFleet.callId(agent), ParkedFleet.TOOL,
                        "{\"what\":\"build/\"}")), "tool_calls", 100, 10, null);
            }
            if (last.role() == Message.Role.TOOL && (roundsPerTurn == 0 || last.content().startsWith("discarded")
                    || countTools(req.messages()) >= roundsPerTurn)) {
                return new Reply("done", List.of(), "stop", 100, 10, null);
            }
            // distinct arguments each round, as real work has (the stuck guard ends a turn repeating one call)
            return new Reply(null, List.of(new ModelToolCall("c" + req.messages().size(), "noop",
                    "{\"n\":" + req.messages().size() + "}")), "tool_calls", 100, 10, null);
        }

        private static int countTools(List<Message> m) {
            int n = 0;
            for (int i = m.size() - 1; i >= 0 && m.get(i).role() != Message.Role.USER; i--) {
                if (m.get(i).role() == Message.Role.TOOL) {
                    n++;
                }
            }
            return n;
        }
    }

    private static final class Noop implements Tool {
        private final ToolSpecification spec = ToolSchemas.spec("noop", "does nothing", ToolSchemas.object()
                .addProperty("n", ToolSchemas.integer("the round")).required("n").build());

        @Override
        public String name() {
            return "noop";
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
            return ToolResult.ok("ok");
        }
    }

    /** Turns: {@code turns} step turns per agent, or one "discard" turn that parks for those in {@link #discard}. */
    private static final class Program implements AgentProgram {
        final Map<AgentKey, AtomicInteger> turns = new ConcurrentHashMap<>();
        final Set<AgentKey> discard = ConcurrentHashMap.newKeySet();
        final AtomicInteger ended = new AtomicInteger();
        final Map<String, AtomicInteger> reasons = new ConcurrentHashMap<>();

        @Override
        public boolean exists(AgentKey key) {
            return true;
        }

        @Override
        public AgentContext context(AgentKey key, AgentRecord record) {
            return AgentContext.of(key.team(), key.name(), AgentRole.TEAMMATE, (tool, id, args, target) ->
                    ToolOutcome.failure("no workspace")).withAllowlist(Set.of("noop", ParkedFleet.TOOL));
        }

        @Override
        public Next next(AgentKey key, AgentSession session) {
            if (discard.remove(key)) {
                return Next.turn("discard build/", "bench", false, List.of());
            }
            AtomicInteger left = turns.get(key);
            if (left != null && left.getAndDecrement() > 0) {
                return Next.turn("work", "bench", false, List.of());
            }
            return Next.idle();
        }

        @Override
        public void stopped(AgentKey key, TurnResult result) {
            reasons.computeIfAbsent(result.reason().wire(), r -> new AtomicInteger()).incrementAndGet();
            if (!result.inProgress()) {
                ended.incrementAndGet();
            }
        }

        @Override
        public void abandoned(AgentKey key, String turnId, String message) {
            System.err.println("abandoned " + key + ": " + message);
        }

        @Override
        public Set<String> settled(Collection<String> waitingFor) {
            return Set.of();
        }
    }
}

package dev.cohort.host.bench;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentStore;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.pg.LocalPostgres;
import dev.cohort.host.store.PgAgentStore;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.io.InputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * What one save of a growing lead conversation costs, the whole state rewritten ("before": the fenced
 * {@code UPDATE … SET state = <whole JSON>} every save did before delta saves) against {@link PgAgentStore}'s delta save
 * ("after"), interleaved round by round on one PostgreSQL (devstack's) so both see the same load: JSON characters
 * sent, WAL bytes written, the saving thread's CPU and wall time per save. A main class (not run by the build):
 * {@code java -cp … dev.cohort.host.bench.SaveBenchmark [--start=100] [--warmup=100] [--rounds=200] [--chars=400]}
 * (messages at the start, unmeasured rounds, measured rounds, characters of each prompt and tool result).
 *
 * <p>The conversation is the round benchmark's shape: a prompt, then per round an assistant message with one
 * {@code bash} call and its result, two saves per round (the reply, then the result).
 */
public final class SaveBenchmark {
    private static final String SCHEMA = "savebench";

    private SaveBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int start = intArg(args, "start", 100);
        int rounds = intArg(args, "rounds", 200);
        int chars = intArg(args, "chars", 400);
        int warmup = intArg(args, "warmup", 100);
        try (LocalPostgres pg = LocalPostgres.start(0);
                AgroalDataSource ds = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                        .connectionPoolConfiguration(cp -> cp.minSize(2).maxSize(4).acquisitionTimeout(Duration.ofSeconds(30))
                                .connectionFactoryConfiguration(cf -> cf.jdbcUrl(pg.jdbcUrl())
                                        .principal(new NamePrincipal(pg.username()))
                                        .credential(new SimplePassword(pg.password())))))) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + SCHEMA);
                s.execute(migration("V100__agent_host_tables.sql"));
                s.execute(migration("V101__agent_messages.sql"));
            }
            PgAgentStore store = new PgAgentStore(ds, SCHEMA, null);
            AgentKey after = new AgentKey("bench", "after");
            AgentKey before = new AgentKey("bench", "before");
            Whole whole = new Whole(ds);
            long vAfter = store.adopt(after, "bench").version();
            long vBefore = store.adopt(before, "bench").version();

            List<Message> conversation = new ArrayList<>();
            conversation.add(Message.user("run the twenty commands " + "x".repeat(chars)));
            for (int i = 0; i < start / 2; i++) {
                round(conversation, i, chars);
            }
            AgentState first = state(conversation);
            vBefore = whole.save(before, first, vBefore);
            vAfter = store.save(after, first, vAfter, List.of());
            System.out.printf("conversation at the start: %d messages, whole state %d chars of JSON%n", conversation.size(),
                    first.toJson().length());

            Measure b = new Measure("before (whole state)");
            Measure a = new Measure("after (delta)");
            for (int r = 0; r < warmup + rounds; r++) {
                if (r == warmup) {
                    b.clear();
                    a.clear();
                    System.out.printf("after %d warm-up rounds: %d messages, whole state %d chars of JSON%n", warmup,
                            conversation.size(), state(conversation).toJson().length());
                }
                for (int half = 0; half < 2; half++) {
                    if (half == 0) {
                        conversation.add(Message.assistant(null, List.of(new ModelToolCall("c" + r, "bash",
                                "{\"command\":\"true " + r + "\"}"))));
                    } else {
                        conversation.add(Message.tool("c" + r, "bash", "ok " + r + " " + "y".repeat(chars), false));
                    }
                    AgentState s = state(conversation);
                    long expectedBefore = vBefore;
                    long expectedAfter = vAfter;
                    // alternate which goes first, so neither always meets a warmer cache
                    if ((r + half) % 2 == 0) {
                        vBefore = b.time(ds, () -> whole.save(before, s, expectedBefore));
                        vAfter = a.time(ds, () -> store.save(after, s, expectedAfter, List.of()));
                    } else {
                        vAfter = a.time(ds, () -> store.save(after, s, expectedAfter, List.of()));
                        vBefore = b.time(ds, () -> whole.save(before, s, expectedBefore));
                    }
                    b.bytes.add(s.toJson().length());
                    a.bytes.add(Json.write(s.withMessages(List.of())).length()
                            + Json.write(conversation.get(conversation.size() - 1)).length());
                }
            }
            System.out.printf("conversation at the end: %d messages, whole state %d chars of JSON%n", conversation.size(),
                    state(conversation).toJson().length());
            for (Measure m : List.of(b, a)) {
                m.print(rounds * 2);
            }
            if (!store.adopt(after, "check").state().messages().equals(conversation)) {
                throw new IllegalStateException("the delta-saved conversation does not read back whole");
            }
            System.out.println("the delta-saved conversation reads back whole: yes");
        }
    }

    private static AgentState state(List<Message> conversation) {
        return new AgentState(AgentState.VERSION, conversation, List.of(), 0, List.of(), null,
                new AgentState.TurnProgress("turn-1", "http", false, 1, 0, null, null));
    }

    private static void round(List<Message> c, int i, int chars) {
        c.add(Message.assistant(null, List.of(new ModelToolCall("w" + i, "bash", "{\"command\":\"true " + i + "\"}"))));
        c.add(Message.tool("w" + i, "bash", "ok " + i + " " + "y".repeat(chars), false));
    }

    /** The store as it was before delta saves: the whole state JSON in one fenced UPDATE per save. */
    private static final class Whole {
        final DataSource ds;
        long last;

        Whole(DataSource ds) {
            this.ds = ds;
        }

        long save(AgentKey key, AgentState state, long expected) throws SQLException {
            String json = state.toJson();
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + SCHEMA + ".agents SET state = ?::jsonb, status = ?, "
                        + "turn_id = ?, waiting_for = ?, deadline = NULL, version = version + 1, updated_at = now() "
                        + "WHERE team = ? AND name = ? AND version = ? RETURNING version")) {
                    ps.setString(1, json);
                    ps.setString(2, AgentStore.phaseOf(state).wire());
                    ps.setString(3, state.turn().turnId());
                    ps.setString(4, null);
                    ps.setString(5, key.team());
                    ps.setString(6, key.name());
                    ps.setLong(7, expected);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new IllegalStateException("fence");
                        }
                        last = rs.getLong(1);
                    }
                }
                c.commit();
            }
            return last;
        }
    }

    @FunctionalInterface
    private interface Save {
        long run() throws Exception;
    }

    private static final class Measure {
        final String name;
        final List<Long> cpu = new ArrayList<>();
        final List<Long> wall = new ArrayList<>();
        final List<Long> wal = new ArrayList<>();
        final List<Integer> bytes = new ArrayList<>();
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        Measure(String name) {
            this.name = name;
        }

        void clear() {
            cpu.clear();
            wall.clear();
            wal.clear();
            bytes.clear();
        }

        long time(DataSource ds, Save save) throws Exception {
            String lsn = lsn(ds);
            long c0 = THREADS.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            long v = save.run();
            long t1 = System.nanoTime();
            long c1 = THREADS.getCurrentThreadCpuTime();
            wall.add(t1 - t0);
            cpu.add(c1 - c0);
            wal.add(walSince(ds, lsn));
            return v;
        }

        void print(int saves) {
            System.out.printf("%-22s per save: wall p50 %.2f ms (mean %.2f), saving thread CPU p50 %.2f ms (mean %.2f), "
                    + "WAL p50 %d bytes (mean %d)%s%n", name, p50(wall) / 1e6, mean(wall) / 1e6, p50(cpu) / 1e6, mean(cpu) / 1e6,
                    (long) p50(wal), (long) mean(wal),
                    bytes.isEmpty() ? "" : String.format(", JSON sent p50 %d chars (mean %d)", (long) p50i(bytes), (long) meani(bytes)));
        }
    }

    private static String lsn(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long walSince(DataSource ds, String lsn) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ?::pg_lsn)::bigint")) {
            ps.setString(1, lsn);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static double p50(List<Long> xs) {
        long[] a = xs.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a[a.length / 2];
    }

    private static double mean(List<Long> xs) {
        return xs.stream().mapToLong(Long::longValue).average().orElse(0);
    }

    private static double p50i(List<Integer> xs) {
        int[] a = xs.stream().mapToInt(Integer::intValue).toArray();
        Arrays.sort(a);
        return a[a.length / 2];
    }

    private static double meani(List<Integer> xs) {
        return xs.stream().mapToInt(Integer::intValue).average().orElse(0);
    }

    private static String migration(String file) throws IOException {
        try (InputStream in = SaveBenchmark.class.getResourceAsStream("/db/agent-host/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${flyway:defaultSchema}", SCHEMA);
        }
    }

    private static int intArg(String[] args, String name, int dflt) {
        for (String a : args) {
            if (a.startsWith("--" + name + "=")) {
                return Integer.parseInt(a.substring(name.length() + 3));
            }
        }
        return dflt;
    }
}

package dev.cohort.teammate.scenario;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.JitCpu;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.ProcessMemory;
import dev.cohort.devstack.ServiceProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.TopicPartition;

/**
 * The teammate benchmarks — a main class, not a test (nothing runs it in {@code ./mvnw verify});
 * how to run it is in {@code teammate-service/README.md} ("Benchmarks"). It starts the whole team as real processes
 * ({@link TeamStack}: tool runner, lead-service, one teammate-service replica; broker, PostgreSQL and the zero-latency
 * scripted model in this JVM) and prints:
 * <ol>
 *   <li><b>message latency</b>: the lead's model reply asks for {@code send_message} to an idle teammate; the gap
 *       between that lead request's arrival at the model server and the teammate's next request's arrival (the
 *       lead's tool call, Kafka, the teammate's wake-up, its inbox read, its prompt assembly), p50/p90/p99;</li>
 *   <li><b>spawn latency</b>: the same gap from the lead's request answered with {@code spawn_teammate} to the new
 *       teammate's first request;</li>
 *   <li><b>1,000 idle teammates</b>: 1,000 {@code spawn} records produced straight to {@code cohort.teammate.inbox};
 *       each teammate answers once and goes idle; then the replica's heap after a full GC ({@code jcmd GC.run} +
 *       {@code GC.heap_info}) and its live threads ({@code jcmd Thread.print}).</li>
 * </ol>
 * The failover time for 50 teammates is printed by {@code TeamFailoverIT}.
 *
 * <p>Options ({@code --name=value}): {@code messages} (200), {@code spawns} (20, at least 1: the messages go to the
 * first), {@code idle} (1000; 0 skips the idle fleet), {@code warmup} (0: messages sent first and not counted, so the
 * services' JIT compilers have settled; run with {@code -Dcohort.devstack.jvm-flags="-Xmx384m -XX:+UseSerialGC"} for
 * {@code cohort up}'s flags, and this JVM without {@code -XX:TieredStopAtLevel=1}: {@code cohort up} runs its broker in
 * the CLI's JVM, compiled by C2), {@code settle} (0: off; N: the warm-up ends early, at most {@code warmup} messages, once
 * the JIT compiler threads of the services and of this JVM together use at most N ms of CPU per second over the last
 * 50 messages: the steady state of long-running services; the JIT's CPU in the measured messages is printed too).
 */
public final class TeamBenchmark {

    private static final String TEAM = "bench";
    private TeamBenchmark() {
    }

    /** Each service's memory at the end, as a container's memory limit counts it ({@link ProcessMemory}). */
    static void memory(TeamStack stack) {
        for (ServiceProcess p : stack.processes()) {
            try {
                System.out.printf("memory of %s: %s%n", p.name(), ProcessMemory.of(p.pid(), p.managementUrl()).describe());
            } catch (IOException e) {
                System.out.printf("memory of %s: unreadable (%s)%n", p.name(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * How this JVM compiles: {@code cohort up} runs its broker in the CLI's JVM with C2, which is what the README's
     * figures since 2026-12-04 use; {@code -XX:TieredStopAtLevel=1} (C1 only) was the benchmark's earlier form.
     */
    static String harnessCompiler() {
        boolean c1 = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.equals("-XX:TieredStopAtLevel=1"));
        return c1 ? "C1 only (-XX:TieredStopAtLevel=1)" : "C2, as cohort up runs its broker";
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (String a : args) {
            String[] kv = a.replaceFirst("^--", "").split("=", 2);
            opts.put(kv[0], kv.length > 1 ? kv[1] : "true");
        }
        int messages = Integer.parseInt(opts.getOrDefault("messages", "200"));
        int spawns = Integer.parseInt(opts.getOrDefault("spawns", "20"));
        int idle = Integer.parseInt(opts.getOrDefault("idle", "1000"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "0"));
        double settle = Double.parseDouble(opts.getOrDefault("settle", "0"));
        Map<String, String> env = new HashMap<>();
        env.put("COHORT_TEAMMATE_MAX_PER_TEAM", String.valueOf(spawns + 10));
        env.put("COHORT_TEAMMATE_MAX_LIVE_PER_TEAM", String.valueOf(spawns + 10));
        // thousands of messages of the scripted model: no daily token budget stops the benchmark
        env.put("COHORT_ENGINE_BUDGETS_TOKENS_PER_TEAM_PER_DAY", "0");
        try (TeamStack stack = TeamStack.start(1, env)) {
            try {
                stack.createTeam(TEAM);
                stack.createTeam("idle");
                stack.loadRules(rules(warmup + REWARM + messages, spawns));
                System.out.printf("load average at start: %s%n", loadAverage());
                spawnLatency(stack, spawns);
                System.out.printf("services' JVM flags: %s%n", System.getProperty("cohort.devstack.jvm-flags", "devstack's"));
                System.out.printf("this JVM (broker, scripted model): %s%n", harnessCompiler());
                messageLatency(stack, warmup, messages, settle);
                if (idle > 0) {
                    idleFleet(stack, idle);
                }
                memory(stack);
                System.out.printf("load average at end: %s%n", loadAverage());
            } catch (Throwable t) {
                System.out.println(stack.logs());
                throw t;
            }
        }
    }

    private static String rules(int messages, int spawns) {
        List<String> r = new ArrayList<>();
        for (int i = 1; i <= spawns; i++) {
            r.add("{\"name\":\"lead-spawn\",\"match\":{\"agent\":\"bench/lead\",\"lastRole\":\"user\",\"lastMessage\":\"^spawn s"
                    + i + "$\"},\"reply\":{\"toolCalls\":[{\"name\":\"spawn_teammate\",\"arguments\":{\"name\":\"s" + i
                    + "\",\"role\":\"bench\",\"prompt\":\"say hi\"}}]}}");
        }
        for (int i = 1; i <= messages; i++) {
            r.add("{\"name\":\"lead-send\",\"match\":{\"agent\":\"bench/lead\",\"lastRole\":\"user\",\"lastMessage\":\"^ping " + i
                    + "$\"},\"reply\":{\"toolCalls\":[{\"name\":\"send_message\",\"arguments\":{\"to\":\"s1\",\"content\":\"ping "
                    + i + "\"}}]}}");
        }
        r.add("""
                {"name":"lead-after-tool","match":{"agent":"bench/lead","lastRole":"tool"},"reply":{"text":"ok"}}""");
        r.add("""
                {"name":"lead-other","match":{"agentRegex":"^(bench|idle)/lead$"},"reply":{"text":"ok"}}""");
        r.add("""
                {"name":"teammate","match":{"agentRegex":"^(bench|idle)/"},"reply":{"text":"pong"}}""");
        return String.join(",", r);
    }

    /** lead request answered with spawn_teammate → the new teammate's first request. */
    private static void spawnLatency(TeamStack stack, int spawns) {
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i <= spawns; i++) {
            String promptText = "spawn s" + i;
            String agent = TEAM + "/s" + i;
            stack.prompt(TEAM, promptText);
            waitFor(Duration.ofMinutes(2), () -> first(stack, agent).isPresent());
            RecordedRequest lead = stack.model().requests().stream().filter(r -> "bench/lead".equals(r.agent())
                    && TeamScenariosIT.lastMessage(r).equals(promptText)).findFirst().orElseThrow();
            gaps.add(ms(lead.time(), first(stack, agent).orElseThrow().time()));
            waitIdle(stack, "s" + i);
            waitLeadSettled(stack, "s" + i, 1);
        }
        print("spawn → first model request", gaps);
    }

    /** lead request answered with send_message → the teammate's next request. */
    /** Messages between the warm-up's end (the 2 s pause of the work baseline) and the counted ones. */
    private static final int REWARM = 20;

    private static void messageLatency(TeamStack stack, int maxWarmup, int messages, double settle) {
        Work before = null;
        List<Double> gaps = new ArrayList<>();
        Map<String, Instant[]> arrivals = new HashMap<>();
        // a plain consumer in this JVM (the broker's) beside the teammate's: the Kafka hop alone, for comparison
        Map<String, Instant> plainAt = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        Thread plain = Thread.ofPlatform().name("bench-plain-consumer").start(() -> plainConsumer(stack, plainAt, stop));
        int warmup = maxWarmup; // the messages not counted: fewer when the JIT settles first (--settle)
        ArrayDeque<double[]> window = new ArrayDeque<>(); // {JIT ms, wall ms} per warm-up message
        long jit0 = 0;
        for (int i = 1; i <= warmup + REWARM + messages; i++) {
            if (i == warmup + 1) {
                // the CPU and statistics baseline pauses 2 s (statistics flush): REWARM more messages follow before
                // the counted ones, so no idle pause sits right before them; the work is divided over both
                before = Work.of(stack);
                jit0 = jitMs(stack);
            }
            long j = i <= warmup && settle > 0 ? jitMs(stack) : 0;
            long t = System.nanoTime();
            String text = "ping " + i;
            stack.prompt(TEAM, text);
            Pattern p = Pattern.compile(">\\n" + Pattern.quote(text) + "\\n</message>");
            waitFor(Duration.ofMinutes(2), () -> stack.model().requests().stream()
                    .anyMatch(r -> "bench/s1".equals(r.agent()) && p.matcher(TeamScenariosIT.lastMessage(r)).find()));
            RecordedRequest lead = stack.model().requests().stream().filter(r -> "bench/lead".equals(r.agent())
                    && TeamScenariosIT.lastMessage(r).equals(text)).findFirst().orElseThrow();
            RecordedRequest mate = stack.model().requests().stream().filter(r -> "bench/s1".equals(r.agent())
                    && p.matcher(TeamScenariosIT.lastMessage(r)).find()).findFirst().orElseThrow();
            if (i > warmup + REWARM) {
                gaps.add(ms(lead.time(), mate.time()));
            }
            arrivals.put(text, new Instant[] {lead.time(), mate.time()});
            waitIdle(stack, "s1");
            waitLeadSettled(stack, "s1", i + 1);
            // the model server would otherwise keep every body it was sent: its heap, and the broker's pauses in this
            // JVM with it, would grow with the run
            stack.model().clearLog();
            if (i <= warmup && settle > 0) {
                window.addLast(new double[] {jitMs(stack) - j, (System.nanoTime() - t) / 1e6});
                if (window.size() > 50) {
                    window.removeFirst();
                }
                double rate = window.stream().mapToDouble(w -> w[0]).sum() * 1000
                        / window.stream().mapToDouble(w -> w[1]).sum();
                if (i % 50 == 0) {
                    System.out.printf("warm-up message %d: JIT %.0f ms/s over the last %d%n", i, rate, window.size());
                }
                if (window.size() == 50 && rate <= settle) {
                    System.out.printf("JIT settled (<= %.0f ms/s) after %d warm-up messages%n", settle, i);
                    warmup = i;
                }
            }
        }
        stop.set(true);
        try {
            plain.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (warmup > 0) {
            System.out.printf("(after %d warm-up messages and %d more after the work baseline, not counted%s)%n", warmup, REWARM,
                    settle > 0 && warmup == maxWarmup ? "; the JIT had not settled" : "");
        }
        print("lead send_message → teammate's next model request", gaps);
        Work.of(stack).minus(before).print(REWARM + messages);
        System.out.printf("  of which the JIT compiler threads of the services and this JVM: %.1f ms per message%n",
                (jitMs(stack) - jit0) / (double) (REWARM + messages));
        breakdown(stack, warmup + REWARM, messages, arrivals, plainAt);
    }

    /** CPU ms of the JIT compiler threads of the services and of this JVM ({@link dev.cohort.devstack.JitCpu}). */
    private static long jitMs(TeamStack stack) {
        long ms = JitCpu.ms(ProcessHandle.current().pid());
        for (var s : stack.services()) {
            ms += JitCpu.ms(s.pid());
        }
        for (var s : stack.teammates()) {
            ms += JitCpu.ms(s.pid());
        }
        return ms;
    }

    /**
     * What the message loop cost, less sensitive to the machine's load than wall time: CPU time of each process (from
     * {@code /proc/<pid>/stat}), PostgreSQL transactions and row reads/writes per schema ({@code pg_stat_*}, flushed
     * by the backends within about a second: read after a pause), and the teammate's tool-runner calls.
     */
    private record Work(Map<String, Long> cpuMs, long commits, Map<String, long[]> bySchema, long runnerCalls) {
        static Work of(TeamStack stack) {
            try {
                Thread.sleep(2000); // let every backend flush its statistics
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Map<String, Long> cpu = new LinkedHashMap<>();
            List<ServiceProcess> procs = new ArrayList<>(stack.services());
            procs.addAll(stack.teammates());
            String[] names = {"lead-service", "tool-runner", "teammate-service"};
            for (int i = 0; i < procs.size(); i++) {
                cpu.put(names[Math.min(i, names.length - 1)], cpuMs(procs.get(i).pid()));
            }
            long commits = 0;
            Map<String, long[]> schemas = new TreeMap<>();
            long calls = 0;
            try (Connection c = stack.db()) {
                try (ResultSet rs = c.createStatement().executeQuery(
                        "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
                    rs.next();
                    commits = rs.getLong(1);
                }
                try (ResultSet rs = c.createStatement().executeQuery("SELECT schemaname, sum(seq_scan + coalesce(idx_scan, 0)),"
                        + " sum(n_tup_ins + n_tup_upd + n_tup_del) FROM pg_stat_user_tables GROUP BY schemaname")) {
                    while (rs.next()) {
                        schemas.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)});
                    }
                }
                try (ResultSet rs = c.createStatement().executeQuery(
                        "SELECT count(*) FROM toolrunner.tool_calls WHERE team = 'bench' AND agent = 's1'")) {
                    rs.next();
                    calls = rs.getLong(1);
                }
            } catch (Exception e) {
                System.out.println("no database statistics: " + e);
            }
            return new Work(cpu, commits, schemas, calls);
        }

        Work minus(Work o) {
            Map<String, Long> cpu = new LinkedHashMap<>();
            cpuMs.forEach((k, v) -> cpu.put(k, v - o.cpuMs.getOrDefault(k, 0L)));
            Map<String, long[]> schemas = new TreeMap<>();
            bySchema.forEach((k, v) -> {
                long[] was = o.bySchema.getOrDefault(k, new long[2]);
                schemas.put(k, new long[] {v[0] - was[0], v[1] - was[1]});
            });
            return new Work(cpu, commits - o.commits, schemas, runnerCalls - o.runnerCalls);
        }

        void print(int n) {
            StringBuilder b = new StringBuilder("  work per message (whole loop: the lead's turn, the teammate's turn, its result):");
            cpuMs.forEach((k, v) -> b.append(String.format(" %s %.1f ms CPU,", k, v / (double) n)));
            b.append(String.format(" %.1f PostgreSQL commits,", commits / (double) n));
            bySchema.forEach((k, v) -> b.append(String.format(" %s %.1f table scans / %.1f rows written,", k, v[0] / (double) n,
                    v[1] / (double) n)));
            b.append(String.format(" %.2f tool-runner calls of the teammate", runnerCalls / (double) n));
            System.out.println(b);
        }

        private static long cpuMs(long pid) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
                return ticks * 10; // USER_HZ = 100
            } catch (Exception e) {
                return 0;
            }
        }
    }

    /**
     * Where the message gap goes, from the agents' own events (an event's ts is taken when it is created, before it
     * is stored and published) and the model server's arrival times, per ping: the lead's reply until its
     * {@code send_message} starts (parse, save, {@code assistant_message}); the call (the roster read, the publish
     * awaited); the teammate's wake-up until its {@code turn_started} (Kafka, the inbox row, the wake, adopt, session
     * open, the inbox read); and from there to its model request (skills and hook settings through the tool runner,
     * the first save, prompt assembly).
     */
    private static void breakdown(TeamStack stack, int warmup, int counted, Map<String, Instant[]> arrivals,
            Map<String, Instant> plainAt) {
        List<Double> plainHop = new ArrayList<>();
        int messages = warmup + counted;
        List<Double> reply = new ArrayList<>();
        List<Double> call = new ArrayList<>();
        List<Double> wake = new ArrayList<>();
        List<Double> stored = new ArrayList<>();
        List<Double> woken = new ArrayList<>();
        List<Double> announced = new ArrayList<>();
        List<Double> start = new ArrayList<>();
        List<double[]> slowest = new ArrayList<>();
        Map<String, Instant> receivedAt = new HashMap<>();
        List<String[]> ev = new ArrayList<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT type, agent, ts, data->>'tool', data->>'phase' FROM lead.events WHERE team = ? ORDER BY seq");
                PreparedStatement inbox = c.prepareStatement(
                        "SELECT content, received_at FROM teammate.inbox WHERE team = ? AND agent = 's1' AND type = 'message'")) {
            ps.setString(1, TEAM);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ev.add(new String[] {rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant().toString(),
                            rs.getString(4), rs.getString(5)});
                }
            }
            inbox.setString(1, TEAM);
            try (ResultSet rs = inbox.executeQuery()) {
                while (rs.next()) {
                    receivedAt.put(rs.getString(1), rs.getTimestamp(2).toInstant());
                }
            }
        } catch (Exception e) {
            System.out.println("no breakdown: " + e);
            return;
        }
        Map<String, Instant> createdAt = recordTimes(stack, TEAM + "/s1");
        List<Double> created = new ArrayList<>();
        List<Double> delivered = new ArrayList<>();
        List<Instant> sendStart = new ArrayList<>();
        List<Instant> sendEnd = new ArrayList<>();
        List<Instant> mateTurn = new ArrayList<>();
        List<Instant> mateWorking = new ArrayList<>();
        for (String[] e : ev) {
            if ("s1".equals(e[1]) && "teammate_phase".equals(e[0]) && "working".equals(e[4])) {
                mateWorking.add(Instant.parse(e[2]));
            }
            if ("lead".equals(e[1]) && "send_message".equals(e[3]) && "tool_call_started".equals(e[0])) {
                sendStart.add(Instant.parse(e[2]));
            } else if ("lead".equals(e[1]) && "send_message".equals(e[3]) && "tool_call_finished".equals(e[0])) {
                sendEnd.add(Instant.parse(e[2]));
            } else if ("s1".equals(e[1]) && "turn_started".equals(e[0])) {
                mateTurn.add(Instant.parse(e[2]));
            }
        }
        // s1's first turn is its spawn's
        int offset = mateTurn.size() - messages;
        for (int i = 1; i <= messages && i <= sendStart.size() && i <= sendEnd.size() && offset + i - 1 < mateTurn.size(); i++) {
            String text = "ping " + i;
            Instant[] at = arrivals.get(text); // the lead's request, the teammate's request
            if (at == null || offset < 0 || i <= warmup) {
                continue;
            }
            Instant turn = mateTurn.get(offset + i - 1);
            reply.add(ms(at[0], sendStart.get(i - 1)));
            call.add(ms(sendStart.get(i - 1), sendEnd.get(i - 1)));
            wake.add(ms(sendStart.get(i - 1), turn));
            start.add(ms(turn, at[1]));
            int workingOffset = mateWorking.size() - messages;
            Instant received = receivedAt.get(text);
            if (received != null && workingOffset >= 0) {
                Instant working = mateWorking.get(workingOffset + i - 1);
                stored.add(ms(sendStart.get(i - 1), received));
                Instant producedAt = createdAt.get(text);
                if (producedAt != null) {
                    created.add(ms(sendStart.get(i - 1), producedAt));
                    delivered.add(ms(producedAt, received));
                    if (plainAt.get(text) != null) {
                        plainHop.add(ms(producedAt, plainAt.get(text)));
                    }
                }
                woken.add(ms(received, working));
                announced.add(ms(working, turn));
                if (producedAt != null) {
                    slowest.add(new double[] {ms(at[0], at[1]), ms(at[0], sendStart.get(i - 1)),
                        ms(sendStart.get(i - 1), producedAt), ms(producedAt, received), ms(received, working),
                        ms(working, turn), ms(turn, at[1])});
                }
            }
        }
        // the slowest messages, phase by phase: which phase makes the tail
        slowest.sort((a, b) -> Double.compare(b[0], a[0]));
        System.out.println("  slowest 8 (gap = lead reply + to record + record → row + row → working + → turn_started"
                + " + → request, ms):");
        slowest.stream().limit(8).forEach(r -> System.out.printf("    %.1f = %.1f + %.1f + %.1f + %.1f + %.1f + %.1f%n",
                r[0], r[1], r[2], r[3], r[4], r[5], r[6]));
        if (reply.isEmpty()) {
            System.out.println("no breakdown: events and requests did not line up");
            return;
        }
        print("  lead: its request → send_message started", reply);
        print("  lead: send_message started → finished (roster read, publish acknowledged)", call);
        print("  send_message started → teammate's turn_started (Kafka, inbox row, wake, session open)", wake);
        if (!stored.isEmpty()) {
            print("    send_message started → the teammate's inbox row stored (publish, Kafka, consumer)", stored);
            if (!created.isEmpty()) {
                print("      send_message started → the record's timestamp (roster read, the producer's send; ms)", created);
                print("      the record's timestamp → the inbox row stored (broker, consumer fetch, teammate read, insert)",
                        delivered);
                if (!plainHop.isEmpty()) {
                    print("      the record's timestamp → a plain consumer in the broker's JVM polled it (the Kafka hop alone)",
                            plainHop);
                }
            }
            print("    inbox row stored → teammate_phase working (wake, adopt, session open, inbox read)", woken);
            print("    teammate_phase working → turn_started", announced);
        }
        print("  teammate: turn_started → its model request (skills, hook settings, save, prompt)", start);
    }

    /**
     * The create times (the producer's clock, ms) of the {@code message} records keyed {@code key} on
     * {@code cohort.teammate.inbox}, by content.
     */
    private static Map<String, Instant> recordTimes(TeamStack stack, String key) {
        Map<String, Instant> out = new HashMap<>();
        try (var c = inboxConsumer(stack)) {
            List<TopicPartition> parts = List.copyOf(c.assignment());
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key())) {
                        try {
                            var m = Json.MAPPER.readTree(r.value());
                            if ("message".equals(m.path("type").asText())) {
                                out.put(m.path("content").asText(), Instant.ofEpochMilli(r.timestamp()));
                            }
                        } catch (Exception e) {
                            // not a message of the benchmark's
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            System.out.println("no record times: " + e);
        }
        return out;
    }

    /** A consumer of every partition of {@code cohort.teammate.inbox}, outside any group. */
    private static KafkaConsumer<String, String> inboxConsumer(TeamStack stack) {
        Properties p = new Properties();
        p.putAll(stack.kafkaClientProperties());
        var c = new KafkaConsumer<String, String>(p,
                new StringDeserializer(),
                new StringDeserializer());
        c.assign(c.partitionsFor(Topics.TEAMMATE_INBOX).stream()
                .map(i -> new TopicPartition(i.topic(), i.partition())).toList());
        return c;
    }

    /** Polls {@code cohort.teammate.inbox} from its end, noting when each message's record arrived, until stopped. */
    private static void plainConsumer(TeamStack stack, Map<String, Instant> at, AtomicBoolean stop) {
        try (var c = inboxConsumer(stack)) {
            List<TopicPartition> parts = List.copyOf(c.assignment());
            c.seekToEnd(parts);
            parts.forEach(c::position);
            while (!stop.get()) {
                for (var r : c.poll(Duration.ofMillis(200))) {
                    Instant now = Instant.now();
                    try {
                        var m = Json.MAPPER.readTree(r.value());
                        if ("message".equals(m.path("type").asText())) {
                            at.putIfAbsent(m.path("content").asText(), now);
                        }
                    } catch (Exception e) {
                        // not a message of the benchmark's
                    }
                }
            }
        } catch (RuntimeException e) {
            System.out.println("no plain consumer: " + e);
        }
    }

    private static void idleFleet(TeamStack stack, int n) throws Exception {
        ServiceProcess replica = stack.teammates().get(0);
        long start = System.nanoTime();
        for (int i = 1; i <= n; i++) {
            String name = String.format("i%04d", i);
            stack.produce(Topics.TEAMMATE_INBOX, "idle/" + name, Json.write(Map.of("id", "spawn-" + name, "team", "idle",
                    "from", "lead", "to", name, "type", "spawn", "content", "say hi",
                    "metadata", Map.of("role", "idle", "prompt", "say hi"))));
        }
        waitFor(Duration.ofMinutes(20), () -> idleCount(stack) >= n);
        System.out.printf("%d teammates spawned, answered once and idle in %.1f s%n", n, (System.nanoTime() - start) / 1e9);
        jcmd(replica.pid(), "GC.run");
        String heap = jcmd(replica.pid(), "GC.heap_info");
        long threads = jcmd(replica.pid(), "Thread.print").lines().filter(l -> l.startsWith("\"")).count();
        System.out.printf("replica heap after full GC:%n%s%nlive threads (platform, from Thread.print): %d%n", heap.strip(), threads);
        Matcher used = Pattern.compile("used (\\d+)K").matcher(heap);
        long usedK = 0;
        while (used.find()) {
            usedK = Math.max(usedK, Long.parseLong(used.group(1)));
        }
        System.out.printf("heap used after GC ≈ %.1f MiB for %d idle teammates (%.1f KiB each, upper bound)%n", usedK / 1024.0, n,
                (double) usedK / n);
    }

    private static int idleCount(TeamStack stack) {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM teammate.agents a WHERE team = 'idle' AND status = 'idle' AND EXISTS (SELECT 1 FROM "
                        + "teammate.agent_messages m WHERE m.team = a.team AND m.name = a.name AND m.message::text LIKE '%pong%')")) {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (Exception e) {
            return 0;
        }
    }

    private static void waitIdle(TeamStack stack, String name) {
        waitFor(Duration.ofMinutes(2), () -> {
            try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                    "SELECT status FROM teammate.agents WHERE team = ? AND name = ?")) {
                ps.setString(1, TEAM);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && "idle".equals(rs.getString(1));
                }
            } catch (Exception e) {
                return false;
            }
        });
    }

    /**
     * The lead has {@code results} results of {@code sender} in its inbox, none left unread, and no turn running:
     * the next prompt starts a turn of its own (a prompt injected into a running turn would not be the last message).
     */
    private static void waitLeadSettled(TeamStack stack, String sender, int results) {
        waitFor(Duration.ofMinutes(2), () -> {
            try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                    "SELECT (SELECT count(*) FROM lead.inbox WHERE team = ? AND sender = ? AND type = 'result'),"
                            + " (SELECT count(*) FROM lead.inbox WHERE team = ? AND status = 'received'),"
                            + " (SELECT count(*) FROM lead.prompts WHERE team = ? AND status NOT IN ('done', 'failed')),"
                            + " (SELECT status FROM lead.agents WHERE team = ? AND name = 'lead')")) {
                ps.setString(1, TEAM);
                ps.setString(2, sender);
                ps.setString(3, TEAM);
                ps.setString(4, TEAM);
                ps.setString(5, TEAM);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1) >= results && rs.getInt(2) == 0 && rs.getInt(3) == 0 && "idle".equals(rs.getString(4));
                }
            } catch (Exception e) {
                return false;
            }
        });
    }

    private static Optional<RecordedRequest> first(TeamStack stack, String agent) {
        return stack.model().requests().stream().filter(r -> agent.equals(r.agent())).findFirst();
    }

    private static double ms(Instant a, Instant b) {
        return Duration.between(a, b).toNanos() / 1e6;
    }

    private static void print(String what, List<Double> gaps) {
        List<Double> s = new ArrayList<>(gaps);
        Collections.sort(s);
        System.out.printf("%s: n=%d p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n", what, s.size(), pct(s, 50),
                pct(s, 90), pct(s, 99), s.getLast());
    }

    private static double pct(List<Double> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static void waitFor(Duration max, BooleanSupplier cond) {
        long end = System.nanoTime() + max.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("timed out after " + max);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "?";
        }
    }
}

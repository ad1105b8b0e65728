package dev.cohort.cli.bench;

import dev.cohort.devstack.JitCpu;
import dev.cohort.devstack.ProcessMemory;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The round benchmark's cold mode: the first turns after a fresh start, as a user meets them right after
 * {@code cohort up}. Not a test; a main class beside {@link RoundBenchmark} (which hands {@code --cold} and
 * {@code --cold-runs} over to it), described in {@code docs/benchmarks/round.md} ("Cold start").
 *
 * <p>Sequence, for each of {@code cold-runs} runs (3): start the broker, PostgreSQL and the scripted model in this JVM
 * and the tool runner and the lead as new JVMs at once, with {@code cohort up}'s JVM flags
 * ({@link RoundBenchmark#startFresh}); time each service from its process start until its {@code /q/health/ready}
 * answers 200; then at once, with no warm-up and no settle phase, {@code cold-turns} (3) turns of {@code rounds} (20)
 * {@code bash "true N"} rounds; read each service's memory from {@code /proc} and its CPU and JIT time; stop everything.
 * Then, with {@code --peers=claude} (or {@code claude,codex}), the same turns on the peers in a fresh
 * {@link PeerHarnesses} session with no warm-up turn: a new home directory, and a new process per turn as always, so
 * the first turn is the peer's first ever run there. Cohort's services are stopped by then, so their JIT, still busy
 * after the turns, takes no core from the peers. Last, a table of every run.
 *
 * <p>Options: those of {@link RoundBenchmark} ({@code rounds}, {@code jvm-flags}, {@code jvm-extra}, {@code sandbox},
 * {@code home}, {@code provider}, {@code keep-logs}, {@code peers}, …; its warm-up, settle and statistics options do not
 * apply), {@code cold-runs} (3) and {@code cold-turns} (3).
 *
 * <p>This JVM (broker, model, SSE follower, the peers' endpoint) lives across the runs, so from the second run on its
 * own code is compiled; the services and the peers' processes are new in every run.
 */
public final class ColdStartBenchmark {

    /** One service's figures after the cold turns: its memory, and its CPU and JIT CPU (ms) until ready and in the turns. */
    record ServiceFigures(String name, ProcessMemory memory, long cpuAtReadyMs, long cpuInTurnsMs, long jitAtReadyMs,
            long jitInTurnsMs) {
    }

    /** One cold run: its start-up, the turns' round gaps in order, turn 1's turn_started → first model request, the services, the peers. */
    record ColdRun(RoundBenchmark.Startup startup, double[] gaps, double firstRequestMs, List<ServiceFigures> services,
            List<PeerHarnesses.Result> peers, String load) {

        double firstGap() {
            return gaps[0];
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = PeerHarnesses.options(args);
        int runs = Integer.parseInt(opts.getOrDefault("cold-runs", "3"));
        int turns = Integer.parseInt(opts.getOrDefault("cold-turns", "3"));
        if (runs < 1 || turns < 1) {
            throw new IllegalArgumentException("cold-runs and cold-turns must be 1 or more");
        }
        List<ColdRun> done = new ArrayList<>();
        for (int r = 1; r <= runs; r++) {
            System.out.printf("[cold-bench] run %d of %d, %s, load average %s%n", r, runs, Instant.now(), RoundBenchmark.load());
            done.add(run(opts, turns));
        }
        print(done, turns, opts);
        System.exit(0); // the embedded brokers' non-daemon threads
    }

    /** One cold run: a fresh start, the first turns, the figures; then the peers' first turns in a fresh session. */
    static ColdRun run(Map<String, String> opts, int turns) throws Exception {
        String load = RoundBenchmark.load();
        RoundBenchmark b = new RoundBenchmark(opts);
        Thread hook = new Thread(b::stop, "cold-bench-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        RoundBenchmark.Startup startup;
        List<RoundBenchmark.Turn> measured = new ArrayList<>();
        List<ServiceFigures> services = new ArrayList<>();
        try {
            startup = b.startFresh();
            Map<String, Process> procs = new LinkedHashMap<>();
            procs.put("tool-runner-service", b.runnerProcess());
            procs.put("lead-service", b.leadProcess());
            Map<String, long[]> atReady = new LinkedHashMap<>();
            procs.forEach((name, p) -> atReady.put(name, new long[] {RoundBenchmark.ticks(p.pid(), false) * 10, JitCpu.ms(p.pid())}));
            for (int i = 1; i <= turns; i++) {
                RoundBenchmark.Turn t = b.turn("cold " + i);
                measured.add(t);
                System.out.printf("[cold-bench] turn %d: first round %.1f ms, round gap p50 %.1f ms p90 %.1f ms max %.1f ms (load %s)%n",
                        i, t.gaps()[0], RoundBenchmark.pct(t.gaps(), 50), RoundBenchmark.pct(t.gaps(), 90),
                        RoundBenchmark.pct(t.gaps(), 100), RoundBenchmark.load());
            }
            for (var e : procs.entrySet()) {
                long pid = e.getValue().pid();
                long cpu = RoundBenchmark.ticks(pid, false) * 10;
                long jit = JitCpu.ms(pid);
                int port = e.getKey().equals("lead-service") ? b.leadManagementPort() : b.runnerManagementPort();
                ProcessMemory memory = memory(pid, port);
                long[] ready = atReady.get(e.getKey());
                services.add(new ServiceFigures(e.getKey(), memory, ready[0], cpu - ready[0], ready[1], jit - ready[1]));
                System.out.printf("[cold-bench] %s: CPU until ready %d ms (JIT %d ms), in the turns %d ms (JIT %d ms); memory %s%n",
                        e.getKey(), ready[0], ready[1], cpu - ready[0], jit - ready[1],
                        memory == null ? "unreadable" : memory.describe());
            }
        } finally {
            b.stop();
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        double[] gaps = measured.stream().flatMapToDouble(t -> Arrays.stream(t.gaps())).toArray();
        RoundBenchmark.Turn first = measured.getFirst();
        double firstRequest = first.events().isEmpty() ? Double.NaN
                : RoundBenchmark.ms(RoundBenchmark.ts(first.events().getFirst()), first.calls().getFirst().time());
        List<PeerHarnesses.Result> peers = List.of();
        if (!opts.getOrDefault("peers", "none").equals("none")) {
            Map<String, String> peerOpts = new LinkedHashMap<>(opts);
            peerOpts.put("peer-turns", Integer.toString(turns));
            peerOpts.put("peer-warmup", "0"); // the first turn of a fresh session is the cold one
            try (PeerHarnesses.Session session = new PeerHarnesses(peerOpts).open()) {
                for (int t = 1; t <= turns; t++) {
                    session.turn(t);
                }
                peers = session.results();
            }
        }
        return new ColdRun(startup, gaps, firstRequest, services, peers, load);
    }

    /** The service's memory now ({@link ProcessMemory}: {@code /proc/PID/status} and its metrics), or null when unreadable. */
    private static ProcessMemory memory(long pid, int managementPort) throws InterruptedException {
        try {
            return ProcessMemory.of(pid, "http://127.0.0.1:" + managementPort);
        } catch (IOException e) {
            System.out.printf("[cold-bench] memory of pid %d unreadable: %s%n", pid, e.getMessage());
            return null;
        }
    }

    /** The runs' table, then Cohort's p50 as a ratio of each peer's per run. */
    static void print(List<ColdRun> runs, int turns, Map<String, String> opts) {
        System.out.printf("[cold-bench] %d cold runs; service JVM flags: %s; each: start, then %d turns at once%n", runs.size(),
                String.join(" ", new RoundBenchmark(opts).jvmFlags()), turns);
        System.out.println("[cold-bench] start-up (ms): broker+PostgreSQL+model in the bench JVM, then from each service's process"
                + " start until ready");
        System.out.println("    run  load            stack   tool-runner   lead   both");
        for (int i = 0; i < runs.size(); i++) {
            RoundBenchmark.Startup s = runs.get(i).startup();
            System.out.printf("    %3d  %-14s %6.0f   %11.0f  %5.0f  %5.0f%n", i + 1, runs.get(i).load(), s.stackMs(), s.runnerMs(),
                    s.leadMs(), s.allMs());
        }
        System.out.printf("[cold-bench] round gap over the first %d turns (ms): turn 1's first model request after its turn_started"
                + " (Cohort) or its process start (the peers), the first round, p50 / p90 / p99 / max%n", turns);
        for (int i = 0; i < runs.size(); i++) {
            ColdRun r = runs.get(i);
            System.out.printf("    %3d  Cohort                     %7.1f  %7.1f   %6.1f / %6.1f / %6.1f / %6.1f%n", i + 1, r.firstRequestMs(),
                    r.firstGap(), RoundBenchmark.pct(r.gaps(), 50), RoundBenchmark.pct(r.gaps(), 90),
                    RoundBenchmark.pct(r.gaps(), 99), RoundBenchmark.pct(r.gaps(), 100));
            for (PeerHarnesses.Result p : r.peers()) {
                if (p.failure() != null) {
                    System.out.printf("         %-44s not run: %s%n", p.harness(), p.failure().lines().findFirst().orElse(""));
                    continue;
                }
                System.out.printf("         %-26s %7s  %7.1f   %6.1f / %6.1f / %6.1f / %6.1f   Cohort p50 / its p50: %.2f%n",
                        p.harness(), p.startupMs().length == 0 ? "-" : String.format("%.1f", p.startupMs()[0]), p.gaps()[0], RoundBenchmark.pct(p.gaps(), 50), RoundBenchmark.pct(p.gaps(), 90),
                        RoundBenchmark.pct(p.gaps(), 99), RoundBenchmark.pct(p.gaps(), 100),
                        RoundBenchmark.pct(r.gaps(), 50) / RoundBenchmark.pct(p.gaps(), 50));
            }
        }
        System.out.println("[cold-bench] after the turns: RSS (peak) MB, heap committed MB; CPU ms until ready (JIT) / in the turns (JIT)");
        for (int i = 0; i < runs.size(); i++) {
            for (ServiceFigures f : runs.get(i).services()) {
                ProcessMemory m = f.memory();
                System.out.printf("    %3d  %-20s %s   %6d (%5d) / %6d (%5d)%n", i + 1, f.name(),
                        m == null ? "unreadable" : String.format("%4d (%4d)  %4d", m.rssMb(), m.peakRssMb(), m.heapCommittedMb()),
                        f.cpuAtReadyMs(), f.jitAtReadyMs(), f.cpuInTurnsMs(), f.jitInTurnsMs());
            }
        }
    }
}

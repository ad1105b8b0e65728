package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.TreeMap;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.Test;

/**
 * The benchmark, run on demand:
 * {@code ./mvnw -B -pl tool-runner-service verify -Dit.test=ToolRunnerBenchmarkIT -Dcohort.bench=true}
 * (options {@code -Dcohort.bench.samples=1000 -Dcohort.bench.seconds=8}; {@code -Dcohort.bench.bash-only=true} for the
 * {@code bash true N} latency alone, {@code -Dcohort.bench.pause-ms=20} to pause between calls as a lead's round does,
 * {@code -Dcohort.bench.env=COHORT_SANDBOX=none,...} for more environment of the runner).
 *
 * <p>It measures the <b>packaged</b> runner ({@code target/quarkus-app/quarkus-run.jar}) as its own process on a
 * devstack, launched the way {@code cohort up} launches it, through the real client over loopback HTTP: each call a
 * distinct call id (so every {@code bash} includes its at-most-once journal insert), {@code read_file} of 4 KB and
 * {@code bash true}, p50/p99 sequentially, then throughput with 32 concurrent callers. Measuring inside a
 * {@code @QuarkusTest} would not be representative: that JVM holds ~960 open files (the test classpath's jars and the
 * in-process Kafka broker) and the JDK's spawn helper closes every one of them in each child before its exec, which
 * triples the cost of starting a process.
 */
@EnabledIfSystemProperty(named = "cohort.bench", matches = "true")
class ToolRunnerBenchmarkIT {
    /** Calls before measuring ({@code -Dcohort.bench.warmup}): C2 still compiles the call path after 300. */
    private static final int WARMUP = Integer.getInteger("cohort.bench.warmup", 300);
    private static final int SAMPLES = Integer.getInteger("cohort.bench.samples", 1000);
    private static final Duration THROUGHPUT_WINDOW = Duration.ofSeconds(Integer.getInteger("cohort.bench.seconds", 8));
    private static final int CALLERS = 32;
    /** {@code bash} only ({@code true N}, N distinct), no read_file and no throughput phase. */
    private static final boolean BASH_ONLY = Boolean.getBoolean("cohort.bench.bash-only");
    /** A pause between sequential calls (a lead's round does other work between two tool calls). */
    private static final long PAUSE_DEFAULT_MS = Long.getLong("cohort.bench.pause-ms", 0);
    /** The pause of the variant being measured (a variant's {@code pause=N} overrides the default). */
    private static long PAUSE_MS = PAUSE_DEFAULT_MS;
    /** Extra environment of the runner, {@code K=V,K=V} (e.g. {@code COHORT_SANDBOX=none}). */
    private static final String EXTRA_ENV = System.getProperty("cohort.bench.env", "");
    private static final String TOKEN = "bench-token";

    private final AtomicLong ids = new AtomicLong();

    /**
     * Runner configurations measured back to back on one devstack, {@code ;}-separated, each {@code K=V,K=V}
     * (default: one run with {@link #EXTRA_ENV}); e.g. {@code COHORT_TOOL_RUNNER_WARM_SANDBOX_ENABLED=false;}. An entry
     * {@code pause=N} sets that variant's pause between calls instead.
     */
    private static final String VARIANTS = System.getProperty("cohort.bench.variants", EXTRA_ENV);

    @Test
    void measuresLatencyAndThroughput() throws Exception {
        // -Dcohort.bench.jar=<a copy of another build's quarkus-app>/quarkus-run.jar: before/after back to back
        Path jar = Path.of(System.getProperty("cohort.bench.jar", "target/quarkus-app/quarkus-run.jar")).toAbsolutePath();
        assertThat(jar).as("package the module first (verify does)").exists();
        StringBuilder all = new StringBuilder();
        try (Devstack stack = Devstack.start(0, Topics.ALL, 1, 0, -1)) {
            for (String variant : VARIANTS.split(";", -1)) {
                all.append(measure(stack, jar, variant));
            }
        }
        System.out.println(all);
    }

    private String measure(Devstack stack, Path jar, String extraEnv) throws Exception {
        Path base = Files.createTempDirectory("cohort-tr-bench");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path state = Files.createDirectories(base.resolve("state"));
        Map<String, String> more = new HashMap<>(Map.of(
                "COHORT_WORKSPACE_ROOT", workspace.toString(),
                "COHORT_STATE_DIR", state.toString(),
                "COHORT_TOOL_RUNNER_TOKEN", TOKEN));
        PAUSE_MS = PAUSE_DEFAULT_MS;
        for (String kv : extraEnv.split(",")) {
            if (kv.strip().startsWith("pause=")) {
                PAUSE_MS = Long.parseLong(kv.strip().substring("pause=".length()));
            } else if (kv.contains("=")) {
                more.put(kv.substring(0, kv.indexOf('=')).strip(), kv.substring(kv.indexOf('=') + 1).strip());
            }
        }
        try (ServiceProcess runner = ServiceProcess.start("tool-runner", jar, Ports.free(), env(stack, more),
                        workspace, Duration.ofSeconds(120))) {
            ToolRunnerClient client = new ToolRunnerClient(runner.url(), TOKEN, Duration.ofSeconds(30));
            client.call("bash", req(Map.of("command", "true")));
            Files.writeString(workspace.resolve("four-k.txt"), ("x".repeat(63) + "\n").repeat(64));
            IntFunction<ToolCallResult> read = i -> client.call("read_file", req(Map.of("path", "four-k.txt")));
            IntFunction<ToolCallResult> bash = i -> client.call("bash", req(Map.of("command", "true " + i)));
            assertThat(read.apply(0).output()).hasSizeGreaterThan(4096);
            assertThat(bash.apply(0).exitCode()).isZero();

            StringBuilder report = new StringBuilder("\n=== tool-runner benchmark (packaged runner, loopback HTTP, ")
                    .append(Runtime.getRuntime().availableProcessors()).append(" cores) ===\n");
            String health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(runner.managementUrl() + "/q/health/ready")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            var level = Pattern.compile("\"sandbox\"\\s*:\\s*\"(\\w+)\"").matcher(health);
            report.append("sandbox in force: ").append(level.find() ? level.group(1) : "unknown").append('\n');
            report.append("load average: ").append(Files.readString(Path.of("/proc/loadavg")).strip())
                    .append("; extra env: ").append(extraEnv.isBlank() ? "none" : extraEnv)
                    .append("; pause between calls: ").append(PAUSE_MS).append(" ms\n");
            var ops = BASH_ONLY ? List.of(Map.entry("bash true N", bash))
                    : List.of(Map.entry("read_file 4 KB", read), Map.entry("bash true N", bash));
            for (var e : ops) {
                for (int i = 0; i < WARMUP; i++) {
                    e.getValue().apply(i);
                    pause();
                }
                // the runner's CPU while idle (Kafka producers, metrics, timers): part of "CPU per call" when paced
                long[] idle0 = cpu(runner.pid());
                Thread.sleep(2000);
                long[] idle1 = cpu(runner.pid());
                report.append(String.format("%-15s runner JVM CPU while idle: %.2f ms per second%n", e.getKey(),
                        (idle1[0] - idle0[0]) * 10.0 / 2));
                Map<String, double[]> phases0 = phases(runner.managementUrl());
                Map<String, Long> threads0 = threadCpu(runner.pid());
                long[] cpu0 = cpu(runner.pid());
                long[] ns = new long[SAMPLES];
                for (int i = 0; i < SAMPLES; i++) {
                    long t0 = System.nanoTime();
                    ToolCallResult r = e.getValue().apply(WARMUP + i);
                    ns[i] = System.nanoTime() - t0;
                    assertThat(r.error()).isNull();
                    pause();
                }
                long[] cpu1 = cpu(runner.pid());
                Map<String, Long> threads1 = threadCpu(runner.pid());
                Map<String, double[]> phases1 = phases(runner.managementUrl());
                Arrays.sort(ns);
                report.append(String.format("%-15s sequential n=%d  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms%n",
                        e.getKey(), SAMPLES, ns[SAMPLES / 2] / 1e6, ns[(int) (SAMPLES * 0.9)] / 1e6,
                        ns[(int) (SAMPLES * 0.99)] / 1e6, ns[SAMPLES - 1] / 1e6));
                report.append(String.format("%-15s CPU per call: runner JVM %.2f ms, its reaped children (sandbox, shell,"
                        + " command) %.2f ms%n", e.getKey(), (cpu1[0] - cpu0[0]) * 10.0 / SAMPLES,
                        (cpu1[1] - cpu0[1]) * 10.0 / SAMPLES));
                // where the JVM's CPU goes: per thread (names with their numbers folded), the largest first
                report.append(String.format("%-15s CPU per call by runner thread (ms):", e.getKey()));
                threads1.entrySet().stream()
                        .map(t -> Map.entry(t.getKey(), t.getValue() - threads0.getOrDefault(t.getKey(), 0L)))
                        .filter(t -> t.getValue() > 0).sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .limit(12).forEach(t -> report.append(String.format(" %s %.2f;", t.getKey(),
                                t.getValue() * 10.0 / SAMPLES)));
                report.append('\n');
                for (var ph : phases1.entrySet()) {
                    double[] before = phases0.getOrDefault(ph.getKey(), new double[2]);
                    double n = ph.getValue()[0] - before[0];
                    if (n > 0) {
                        report.append(String.format("%-15s   phase %-16s mean %.3f ms (n=%.0f)%n", e.getKey(), ph.getKey(),
                                (ph.getValue()[1] - before[1]) * 1000 / n, n));
                    }
                }
                if (!BASH_ONLY) {
                    report.append(String.format("%-15s %d callers: %.0f calls/s%n", e.getKey(), CALLERS,
                            throughput(e.getValue())));
                }
            }
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(runner.managementUrl() + "/q/metrics")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            var warm = Pattern.compile(
                    "cohort_toolrunner_warm_sandbox_total\\{[^}]*outcome=\"([^\"]+)\"[^}]*} ([0-9.eE+-]+)").matcher(metrics);
            report.append("warm sandboxes (whole run):");
            while (warm.find()) {
                report.append(' ').append(warm.group(1)).append('=').append((long) Double.parseDouble(warm.group(2)));
            }
            report.append('\n');
            // each process start closes every inherited descriptor in the child: this number is part of the cost
            String[] fds = new File("/proc/" + runner.pid() + "/fd").list();
            report.append("open files in the runner process: ").append(fds == null ? "unknown" : fds.length).append('\n');
            System.out.println(report);
            return report.toString();
        }
    }

    private static void pause() {
        if (PAUSE_MS > 0) {
            LockSupport.parkNanos(PAUSE_MS * 1_000_000);
        }
    }

    /** utime+stime and cutime+cstime of {@code pid}, in clock ticks (1/100 s). */
    private static long[] cpu(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // after the name: state(0) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(11) stime cutime cstime
        return new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])};
    }

    /**
     * utime+stime in clock ticks of each of {@code pid}'s threads ({@code /proc/<pid>/task/<tid>/stat}), summed by thread
     * name with digits folded to {@code N} ({@code executor-thread-N}, {@code ForkJoinPool-N-worker-N}). Threads that
     * ended in between are missing from the second reading, so a name's difference can undercount.
     */
    private static Map<String, Long> threadCpu(long pid) {
        Map<String, Long> out = new HashMap<>();
        String[] tids = new File("/proc/" + pid + "/task").list();
        if (tids == null) {
            return out;
        }
        for (String tid : tids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "task", tid, "stat"));
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "N");
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                out.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
            } catch (IOException | RuntimeException e) {
                // the thread ended while reading
            }
        }
        return out;
    }

    /** The runner's per-phase timers of {@code bash} ({@code cohort_toolrunner_bash_phase_seconds}) on its management port {@code url}: count and sum. */
    private static Map<String, double[]> phases(String url) throws Exception {
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(url + "/q/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Map<String, double[]> out = new TreeMap<>();
        var m = Pattern.compile(
                "cohort_toolrunner_bash_phase_seconds_(count|sum)\\{[^}]*phase=\"([^\"]+)\"[^}]*} ([0-9.eE+-]+)")
                .matcher(body);
        while (m.find()) {
            double[] v = out.computeIfAbsent(m.group(2), k -> new double[2]);
            v[m.group(1).equals("count") ? 0 : 1] = Double.parseDouble(m.group(3));
        }
        return out;
    }

    private double throughput(IntFunction<ToolCallResult> op) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        long end = System.nanoTime() + THROUGHPUT_WINDOW.toNanos();
        AtomicLong done = new AtomicLong();
        List<Future<?>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < CALLERS; c++) {
            fs.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    assertThat(op.apply(0).error()).isNull();
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        return done.get() / ((System.nanoTime() - t0) / 1e9);
    }

    private static Map<String, String> env(Devstack stack, Map<String, String> more) {
        Map<String, String> env = stack.serviceEnvironment();
        env.putAll(more);
        return env;
    }

    private ToolCallRequest req(Map<String, Object> args) {
        return new ToolCallRequest("default", "lead", "bench_" + ids.incrementAndGet(), null, args);
    }
}

package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The benchmark, run on demand:
 * {@code ./mvnw -B -pl tool-runner-service verify -Dit.test=ToolRunnerBenchmarkIT -Dcohort.bench=true}
 * (options {@code -Dcohort.bench.samples=1000 -Dcohort.bench.seconds=8}).
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
    private static final int WARMUP = 300;
    private static final int SAMPLES = Integer.getInteger("cohort.bench.samples", 1000);
    private static final Duration THROUGHPUT_WINDOW = Duration.ofSeconds(Integer.getInteger("cohort.bench.seconds", 8));
    private static final int CALLERS = 32;
    private static final String TOKEN = "bench-token";

    private final AtomicLong ids = new AtomicLong();

    @Test
    void measuresLatencyAndThroughput() throws Exception {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
        assertThat(jar).as("package the module first (verify does)").exists();
        Path base = Files.createTempDirectory("cohort-tr-bench");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path state = Files.createDirectories(base.resolve("state"));
        try (Devstack stack = Devstack.start(0, Topics.ALL, 1, 0, -1);
                ServiceProcess runner = ServiceProcess.start("tool-runner", jar, Ports.free(), env(stack, Map.of(
                        "COHORT_WORKSPACE_ROOT", workspace.toString(),
                        "COHORT_STATE_DIR", state.toString(),
                        "COHORT_TOOL_RUNNER_TOKEN", TOKEN)), workspace, Duration.ofSeconds(120))) {
            ToolRunnerClient client = new ToolRunnerClient(runner.url(), TOKEN, Duration.ofSeconds(30));
            client.call("bash", req(Map.of("command", "true")));
            Files.writeString(workspace.resolve("four-k.txt"), ("x".repeat(63) + "\n").repeat(64));
            IntFunction<ToolCallResult> read = i -> client.call("read_file", req(Map.of("path", "four-k.txt")));
            IntFunction<ToolCallResult> bash = i -> client.call("bash", req(Map.of("command", "true")));
            assertThat(read.apply(0).output()).hasSizeGreaterThan(4096);
            assertThat(bash.apply(0).exitCode()).isZero();

            StringBuilder report = new StringBuilder("\n=== tool-runner benchmark (packaged runner, loopback HTTP, ")
                    .append(Runtime.getRuntime().availableProcessors()).append(" cores) ===\n");
            String health = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(runner.url() + "/q/health/ready")).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            var level = java.util.regex.Pattern.compile("\"sandbox\"\\s*:\\s*\"(\\w+)\"").matcher(health);
            report.append("sandbox in force: ").append(level.find() ? level.group(1) : "unknown").append('\n');
            for (var e : List.of(Map.entry("read_file 4 KB", read), Map.entry("bash true", bash))) {
                for (int i = 0; i < WARMUP; i++) {
                    e.getValue().apply(i);
                }
                long[] ns = new long[SAMPLES];
                for (int i = 0; i < SAMPLES; i++) {
                    long t0 = System.nanoTime();
                    ToolCallResult r = e.getValue().apply(i);
                    ns[i] = System.nanoTime() - t0;
                    assertThat(r.error()).isNull();
                }
                Arrays.sort(ns);
                report.append(String.format("%-15s sequential n=%d  p50 %.2f ms  p99 %.2f ms  max %.2f ms%n", e.getKey(),
                        SAMPLES, ns[SAMPLES / 2] / 1e6, ns[(int) (SAMPLES * 0.99)] / 1e6, ns[SAMPLES - 1] / 1e6));
                report.append(String.format("%-15s %d callers: %.0f calls/s%n", e.getKey(), CALLERS, throughput(e.getValue())));
            }
            // each process start closes every inherited descriptor in the child: this number is part of the cost
            String[] fds = new java.io.File("/proc/" + runner.pid() + "/fd").list();
            report.append("open files in the runner process: ").append(fds == null ? "unknown" : fds.length).append('\n');
            System.out.println(report);
        }
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

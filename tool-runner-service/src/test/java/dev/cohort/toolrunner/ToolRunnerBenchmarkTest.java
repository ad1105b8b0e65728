package dev.cohort.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Files;
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
 * The benchmark (run on demand: {@code ./mvnw -pl tool-runner-service verify -Dtest=ToolRunnerBenchmarkTest
 * -Dcohort.bench=true}): loopback HTTP round trips through the real client, each a distinct recorded call, for
 * {@code read_file} of 4 KB and {@code bash true}: p50/p99 sequentially, then throughput with 32 concurrent callers.
 * Prints the figures recorded in the module README.
 */
@QuarkusTest
@EnabledIfSystemProperty(named = "cohort.bench", matches = "true")
class ToolRunnerBenchmarkTest {
    private static final int WARMUP = 300;
    private static final int SAMPLES = Integer.getInteger("cohort.bench.samples", 1000);
    private static final Duration THROUGHPUT_WINDOW = Duration.ofSeconds(Integer.getInteger("cohort.bench.seconds", 8));
    private static final int CALLERS = 32;

    @TestHTTPResource("/")
    URL url;

    private final AtomicLong ids = new AtomicLong();

    @Test
    void measuresLatencyAndThroughput() throws Exception {
        String team = Calls.newTeam();
        ToolRunnerClient client = new ToolRunnerClient(url.toString(), TempWorkspaceResource.TOKEN, Duration.ofSeconds(30));
        client.call("bash", req(team, Map.of("command", "true")));
        Files.writeString(Calls.workspace(team).resolve("four-k.txt"), ("x".repeat(63) + "\n").repeat(64));
        IntFunction<ToolCallResult> read = i -> client.call("read_file", req(team, Map.of("path", "four-k.txt")));
        IntFunction<ToolCallResult> bash = i -> client.call("bash", req(team, Map.of("command", "true")));
        assertThat(read.apply(0).output()).hasSizeGreaterThan(4096);
        assertThat(bash.apply(0).exitCode()).isZero();

        StringBuilder report = new StringBuilder("\n=== tool-runner benchmark (loopback HTTP, ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores) ===\n");
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
        System.out.println(report);
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

    private ToolCallRequest req(String team, Map<String, Object> args) {
        return new ToolCallRequest(team, "lead", "bench_" + ids.incrementAndGet(), null, args);
    }
}

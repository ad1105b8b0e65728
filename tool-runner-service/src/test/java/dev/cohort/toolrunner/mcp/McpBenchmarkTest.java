package dev.cohort.toolrunner.mcp;

import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.McpPeers;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The figures of MCP servers on the runner, run on demand:
 * {@code ./mvnw -B -pl tool-runner-service test -Dtest=McpBenchmarkTest -Dcohort.bench=true}
 * ({@code -Dcohort.bench.samples=300}, {@code -Dcohort.bench.starts=8}). Through the runner's HTTP API as the agents
 * call it: the time from a tool call to its result through {@code server-everything}'s {@code echo} in the team's
 * sandbox (stdio, each call its own id, so each goes through the at-most-once journal), p50/p99 after a warm-up; and a
 * server's start on first use (a new team: sandbox, Node.js start, handshake, {@code tools/list}). Measured in the test
 * JVM, whose many open files make each process start slower than the packaged runner's.
 */
@QuarkusTest
@EnabledIfSystemProperty(named = "cohort.bench", matches = "true")
class McpBenchmarkTest {
    private static final int SAMPLES = Integer.getInteger("cohort.bench.samples", 300);
    private static final int STARTS = Integer.getInteger("cohort.bench.starts", 8);

    @Test
    void measuresCallsAndStarts() {
        McpPeers p = McpPeers.required();
        McpServerConfig s = new McpServerConfig("everything", "stdio", p.node().toString(),
                List.of(p.everything().toString(), "stdio"), null, null, null, null, "api");
        List<Double> starts = new ArrayList<>();
        for (int i = 0; i < STARTS; i++) {
            String team = newTeam();
            long t0 = System.nanoTime();
            assertThat(McpHostTest.list(team, false, s).get(0).error()).isNull();
            starts.add((System.nanoTime() - t0) / 1e6);
        }
        String team = newTeam();
        for (int i = 0; i < 50; i++) {
            call(team, s);
        }
        List<Double> calls = new ArrayList<>();
        for (int i = 0; i < SAMPLES; i++) {
            long t0 = System.nanoTime();
            call(team, s);
            calls.add((System.nanoTime() - t0) / 1e6);
        }
        System.out.printf("%nMCP stdio tool call (server-everything echo, %d calls): p50 %.1f ms, p99 %.1f ms%n",
                SAMPLES, pct(calls, 50), pct(calls, 99));
        System.out.printf("MCP server start on first use (%d new teams): p50 %.0f ms, max %.0f ms%n%n", STARTS,
                pct(starts, 50), pct(starts, 100));
    }

    private static void call(String team, McpServerConfig s) {
        ToolCallResult r = McpHostTest.call(team, "call_" + UUID.randomUUID(), s, "echo", Map.of("message", "x"));
        assertThat(r.error()).isNull();
    }

    private static double pct(List<Double> v, int p) {
        List<Double> sorted = new ArrayList<>(v);
        Collections.sort(sorted);
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
}

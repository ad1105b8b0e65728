package dev.cohort.cli;

import static dev.cohort.cli.UpCommandIT.awaitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Black box, one boot of {@code cohort up --tool-runner-replicas 2 --max-restarts 0}: both tool-runner-service JVMs are
 * listed with their replica names and run with their own {@code COHORT_INSTANCE_ID}; the lead and the teammates get both
 * URLs in {@code COHORT_TOOL_RUNNER_URL}. The lead's tool call runs on the first replica; once that one is SIGKILLed
 * (and not restarted), the lead's next tool call runs on the second.
 */
class UpToolRunnerReplicasIT {

    /** A service line of the start-up listing: {@code  tool-runner-service-2  http://127.0.0.1:41234  pid 5678 … replica tool-runner-2}. */
    private static final Pattern LISTED = Pattern.compile("\\s+(\\S+)\\s+http://127\\.0\\.0\\.1:(\\d+)\\s+pid (\\d+)"
            + "\\s+management http://127\\.0\\.0\\.1:(\\d+)(?:\\s+replica (\\S+))?");

    @TempDir
    Path tmp;

    private record Listed(String name, int port, long pid, String replica) {
    }

    @Test
    void twoToolRunnerReplicasAreListedAndTheLeadMovesToTheSecondWhenTheFirstIsKilled() throws Exception {
        Path scenario = tmp.resolve("scenario.json");
        Files.writeString(scenario, """
                {"rules":[
                 {"name":"memory","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}},
                 {"name":"work","match":{"agent":"default/lead","lastMessage":"^work$"},
                  "reply":{"text":"let me check","toolCalls":[{"name":"bash","arguments":{"command":"echo replica-run >> runs.txt; echo replica-run"}}]}},
                 {"name":"worked","match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"worked"}}]}""");
        UpCommandIT.Up up = UpCommandIT.start(tmp, scenario, Map.of(), "--tool-runner-replicas", "2", "--max-restarts", "0");
        try {
            Path runDir = awaitReady(up);
            Set<ProcessHandle> seen = new LinkedHashSet<>(up.process().descendants().toList());
            assertThat(up.out()).anyMatch(l -> l.matches("cohort up: all four services ready in [0-9.]+ s \\(2 tool-runner-service replicas\\)\\. "
                    + "Ctrl-C stops everything\\."));
            Listed first = listed(up, "tool-runner-service");
            Listed second = listed(up, "tool-runner-service-2");
            assertThat(first.port()).isEqualTo(up.ports()[5]);
            assertThat(List.of(first.replica(), second.replica())).containsExactly("tool-runner-1", "tool-runner-2");
            assertThat(ServiceEnvironment.of(first.pid())).containsEntry("COHORT_INSTANCE_ID", "tool-runner-1");
            assertThat(ServiceEnvironment.of(second.pid())).containsEntry("COHORT_INSTANCE_ID", "tool-runner-2")
                    .containsEntry("QUARKUS_HTTP_PORT", "" + second.port());
            String urls = "http://127.0.0.1:" + first.port() + ",http://127.0.0.1:" + second.port();
            Map<String, String> leadEnv = ServiceEnvironment.of(listed(up, "lead-service").pid());
            assertThat(leadEnv).containsEntry("COHORT_TOOL_RUNNER_URL", urls);
            assertThat(ServiceEnvironment.of(listed(up, "teammate-service").pid())).containsEntry("COHORT_TOOL_RUNNER_URL", urls);

            JsonNode run = Json.MAPPER.readTree(tmp.resolve("home").resolve("up.json").toFile());
            String leadUrl = run.get("leadUrl").asText();
            String token = run.get("apiToken").asText();
            assertThat(UpCommandIT.send("work", leadUrl, token)).isEqualTo(new UpCommandIT.Sent(0, "worked", ""));

            ProcessHandle.of(first.pid()).orElseThrow().destroyForcibly();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> up.out().stream()
                    .anyMatch(l -> l.startsWith("cohort up: tool-runner-service (pid " + first.pid() + ") exited unexpectedly")));
            assertThat(UpCommandIT.send("work", leadUrl, token)).isEqualTo(new UpCommandIT.Sent(0, "worked", ""));

            assertThat(Files.readString(tmp.resolve("ws").resolve("runs.txt"))).isEqualTo("replica-run\nreplica-run\n");
            // the journal says where each ran (results are stored just after the answer)
            List<String> ranOn = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> instancesOfRuns(leadEnv), l -> l.size() == 2);
            assertThat(ranOn).containsExactly("tool-runner-1", "tool-runner-2");
            assertThat(UpCommandIT.listening(first.port())).isFalse();

            UpCommandIT.signal(up, "TERM");
            UpCommandIT.assertNothingLeft(tmp, up, new ArrayList<>(seen), runDir);
            assertThat(UpCommandIT.listening(second.port())).isFalse();
        } finally {
            UpCommandIT.kill(up);
        }
    }

    /** The instance each finished {@code replica-run} call ran on, oldest first, from the database cohort up started. */
    private static List<String> instancesOfRuns(Map<String, String> serviceEnv) throws Exception {
        try (Connection c = DriverManager.getConnection(serviceEnv.get("COHORT_DB_URL"), serviceEnv.get("COHORT_DB_USER"),
                serviceEnv.get("COHORT_DB_PASSWORD"));
                PreparedStatement ps = c.prepareStatement("SELECT instance_id FROM toolrunner.tool_calls WHERE tool = 'bash'"
                        + " AND status = 'done' AND result->>'output' = 'replica-run' || chr(10) ORDER BY started_at");
                ResultSet rs = ps.executeQuery()) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }

    private static Listed listed(UpCommandIT.Up up, String name) {
        for (String line : up.out()) {
            Matcher m = LISTED.matcher(line);
            if (m.matches() && m.group(1).equals(name)) {
                return new Listed(name, Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)), m.group(5));
            }
        }
        throw new AssertionError(name + " is not listed; output:\n" + String.join("\n", up.out()));
    }

}

package dev.cohort.cli;

import static dev.cohort.cli.UpCommandIT.awaitReady;
import static dev.cohort.cli.UpCommandIT.listening;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Black box, one boot of {@code cohort up --lead-replicas 2 --max-restarts 1}: both lead replicas are listed with
 * their port and PID, are ready and split the team partitions in one consumer group; a SIGKILLed lead is reported,
 * restarted and answers again; killed once more it is given up on while everything else keeps running, and the other
 * replica takes over every team; SIGTERM still leaves nothing running.
 */
class UpSupervisionIT {

    /**
     * A service line of the start-up listing:
     * {@code  lead-service-2   http://127.0.0.1:41234  pid 5678  management http://127.0.0.1:41235}, a teammate-service one
     * with {@code  replica teammate-1} after it.
     */
    private static final Pattern LISTED = Pattern.compile(
            "\\s+(\\S+)\\s+http://127\\.0\\.0\\.1:(\\d+)\\s+pid (\\d+)\\s+management http://127\\.0\\.0\\.1:(\\d+)(?:\\s+replica \\S+)?");

    private static final Pattern BACK = Pattern.compile("cohort up: lead-service is back \\(pid (\\d+), ready [0-9.]+ s after its restart\\)");

    /** Generous for a loaded 2-core machine: a lead JVM's start there takes up to a minute. */
    private static final Duration RESTART = Duration.ofSeconds(180);

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private record Listed(String name, int port, long pid, int management) {
    }

    @Test
    void aKilledServiceIsReportedAndRestartedAndWhenGivenUpTheOtherLeadReplicaTakesOverItsTeams() throws Exception {
        Path scenario = tmp.resolve("scenario.json");
        Files.writeString(scenario, """
                {"rules":[
                 {"name":"memory","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}},
                 {"name":"pong","match":{"agent":"default/lead","lastMessage":"^ping$"},"reply":{"text":"pong"}}]}""");
        UpCommandIT.Up up = UpCommandIT.start(tmp, scenario, Map.of(), "--lead-replicas", "2", "--max-restarts", "1");
        try {
            Path runDir = awaitReady(up);
            Set<ProcessHandle> seen = new LinkedHashSet<>(up.process().descendants().toList());
            String token = Json.MAPPER.readTree(tmp.resolve("home").resolve("up.json").toFile()).get("apiToken").asText();

            // both replicas listed: the first on --lead-port, the second on a port of its own; each a lead-service child
            Listed lead = listed(up, "lead-service");
            Listed second = listed(up, "lead-service-2");
            // the broker's address and SASL login, as cohort up gave them to the lead
            Map<String, Object> kafka = ServiceEnvironment.kafkaClientProperties(lead.pid());
            assertThat(kafka).containsEntry("bootstrap.servers", "127.0.0.1:" + up.ports()[0]);
            assertThat(lead.port()).isEqualTo(up.ports()[2]);
            assertThat(second.port()).isNotIn(up.ports()[2], up.ports()[3], up.ports()[4], up.ports()[5]);
            for (Listed l : List.of(lead, second)) {
                ProcessHandle h = ProcessHandle.of(l.pid()).orElseThrow();
                assertThat(h.parent().map(ProcessHandle::pid)).contains(up.process().pid());
                assertThat(h.info().commandLine().orElse("")).contains("lead-service/target/quarkus-app/quarkus-run.jar");
                assertThat(ready(l.management())).as("%s is ready", l.name()).isTrue();
                assertThat(ready(l.port())).as("%s's API port serves no health", l.name()).isFalse();
            }
            assertThat(up.out()).anyMatch(l -> l.matches("cohort up: all four services ready in [0-9.]+ s \\(2 lead-service replicas\\)\\. "
                    + "Ctrl-C stops everything\\."))
                    .contains("cohort up: a service that exits is restarted with backoff (at most 1 time within 10 min)");

            // one consumer group: each replica owns two of the four partitions of cohort.prompts
            try (Admin admin = Admin.create(kafka)) {
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> promptPartitionsPerMember(admin), m -> m.equals(List.of(Set.of(0, 1), Set.of(2, 3))));

                // SIGKILL the first replica: reported with what comes next, restarted, ready again on its port
                ProcessHandle.of(lead.pid()).orElseThrow().destroyForcibly();
                awaitLine(up, "cohort up: lead-service (pid " + lead.pid() + ") exited unexpectedly: killed by SIGKILL (exit code 137); "
                        + "restarting it in 1 s (restart 1 of at most 1 within 10 min)", Duration.ofSeconds(60));
                long restarted = Long.parseLong(await().atMost(RESTART).pollInterval(Duration.ofMillis(200))
                        .until(() -> backLine(up), Optional::isPresent).orElseThrow());
                assertThat(restarted).isNotEqualTo(lead.pid());
                ProcessHandle again = ProcessHandle.of(restarted).orElseThrow();
                assertThat(again.parent().map(ProcessHandle::pid)).contains(up.process().pid());
                seen.addAll(up.process().descendants().toList());
                assertThat(ready(lead.management())).isTrue();
                assertThat(UpCommandIT.send("ping", "http://127.0.0.1:" + lead.port(), token)).isEqualTo(new UpCommandIT.Sent(0, "pong", ""));

                // killed again, over --max-restarts 1 within the window: given up on; the rest keep running
                again.destroyForcibly();
                String gaveUp = awaitLine(up, "cohort up: lead-service (pid " + restarted + ") exited unexpectedly: killed by SIGKILL "
                        + "(exit code 137); giving up on it (already restarted 1 time within 10 min), the other services keep running; "
                        + "its log: ", Duration.ofSeconds(60));
                assertThat(gaveUp).endsWith("lead-service.log");
                assertThat(up.process().isAlive()).isTrue();
                assertThat(listening(lead.port())).as("nothing restarted on the given-up replica's port").isFalse();
                for (Listed l : List.of(second, listed(up, "teammate-service"), listed(up, "scheduler-service"),
                        listed(up, "tool-runner-service"))) {
                    assertThat(ready(l.management())).as("%s still ready", l.name()).isTrue();
                }
                // failover: once the dead members' sessions expire, the second replica owns every team and answers
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> promptPartitionsPerMember(admin), m -> m.equals(List.of(Set.of(0, 1, 2, 3))));
                assertThat(UpCommandIT.send("ping", "http://127.0.0.1:" + second.port(), token))
                        .isEqualTo(new UpCommandIT.Sent(0, "pong", ""));
            }
            assertThat(up.out()).noneMatch(l -> l.startsWith("cohort up: lead-service-2 ") || l.contains("teammate-service (pid")
                    || l.contains("scheduler-service (pid") || l.contains("tool-runner-service (pid"));

            UpCommandIT.signal(up, "TERM");
            UpCommandIT.assertNothingLeft(tmp, up, new ArrayList<>(seen), runDir);
        } finally {
            UpCommandIT.kill(up);
        }
    }

    private static Listed listed(UpCommandIT.Up up, String name) {
        for (String line : up.out()) {
            Matcher m = LISTED.matcher(line);
            if (m.matches() && m.group(1).equals(name)) {
                return new Listed(name, Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)), Integer.parseInt(m.group(4)));
            }
        }
        throw new AssertionError(name + " is not listed; output:\n" + String.join("\n", up.out()));
    }

    /** Waits for a console line starting with {@code prefix}; returns it. */
    private static String awaitLine(UpCommandIT.Up up, String prefix, Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(200))
                .until(() -> up.out().stream().filter(l -> l.startsWith(prefix)).findFirst(), Optional::isPresent).orElseThrow();
    }

    private static Optional<String> backLine(UpCommandIT.Up up) {
        return up.out().stream().map(BACK::matcher).filter(Matcher::matches).map(m -> m.group(1)).findFirst();
    }

    /** For each member of the lead's consumer group, the cohort.prompts partitions it owns, sorted by the lowest. */
    private static List<Set<Integer>> promptPartitionsPerMember(Admin admin) throws Exception {
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of("cohort-lead")).all().get().get("cohort-lead");
        List<Set<Integer>> owned = new ArrayList<>();
        for (MemberDescription m : group.members()) {
            Set<Integer> parts = new TreeSet<>();
            for (TopicPartition tp : m.assignment().topicPartitions()) {
                if (tp.topic().equals(Topics.PROMPTS)) {
                    parts.add(tp.partition());
                }
            }
            owned.add(parts);
        }
        owned.sort((a, b) -> Integer.compare(a.isEmpty() ? Integer.MAX_VALUE : a.iterator().next(),
                b.isEmpty() ? Integer.MAX_VALUE : b.iterator().next()));
        return owned;
    }

    private boolean ready(int managementPort) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"UP\"");
        } catch (IOException e) {
            return false;
        }
    }
}

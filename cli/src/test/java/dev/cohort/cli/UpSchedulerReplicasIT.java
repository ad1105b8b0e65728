package dev.cohort.cli;

import static dev.cohort.cli.UpCommandIT.awaitReady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Black box, one boot of {@code cohort up --scheduler-replicas 2}: two scheduler-service JVMs on their own ports, one
 * PostgreSQL, both firing (each heartbeats its own instance id from its firing loop, and claims one due job per
 * transaction, {@code COHORT_SCHEDULER_BATCH_SIZE=1}, so the two interleave at every minute). Jobs due every minute,
 * created through both replicas, fire exactly once per due minute: read from the scheduler's own store
 * ({@code fire_count}, {@code next_fire_at}) and from every {@code cron_fired} record it produced on
 * {@code cohort.events}, and no wake-up prompt on {@code cohort.prompts} is produced twice. Two due minutes are awaited,
 * so the test takes two to three minutes after the start.
 */
class UpSchedulerReplicasIT {

    private static final String TOKEN = "up-scheduler-replicas-it-token-0123456789abcdef";
    /** A service line of the start-up listing: {@code  scheduler-service-2  http://127.0.0.1:41234  pid 5678}. */
    private static final Pattern LISTED = Pattern.compile("\\s+(\\S+)\\s+http://127\\.0\\.0\\.1:(\\d+)\\s+pid (\\d+).*");
    /** Jobs due at the same minutes: enough that both replicas claim some when they tick together. */
    private static final int JOBS = 6;
    /** Due minutes each job must have fired for: the first one and at least one more boundary. */
    private static final int MINUTES = 2;

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** One job's state in the scheduler's store. */
    private record Stored(String id, long fireCount, Instant nextFireAt) {
    }

    /** The database and credentials {@code cohort up} gave its services (devstack's, drawn when its PostgreSQL started). */
    private record Db(String url, String user, String password) {
        Connection connect() throws SQLException {
            return DriverManager.getConnection(url, user, password);
        }
    }

    @Test
    void twoSchedulerReplicasOnOneDatabaseFireEachDueMinuteOfAJobOnce() throws Exception {
        Path scenario = Files.writeString(tmp.resolve("scenario.json"), """
                {"rules":[{"name":"cron-prompt","match":{"agent":"default/lead"},"reply":{"text":"tick noted"}}]}
                """);
        UpCommandIT.Up up = UpCommandIT.start(tmp, scenario, Map.of("COHORT_API_TOKEN", TOKEN,
                "COHORT_SCHEDULER_BATCH_SIZE", "1"), "--scheduler-replicas", "2");
        try {
            Path runDir = awaitReady(up);
            Set<ProcessHandle> seen = new LinkedHashSet<>(up.process().descendants().toList());
            assertThat(up.out()).anyMatch(l -> l.matches("cohort up: all four services ready in [0-9.]+ s "
                    + "\\(2 scheduler-service replicas\\)\\. Ctrl-C stops everything\\."));
            Map<String, Integer> listed = listed(up);
            assertThat(listed).containsOnlyKeys("tool-runner-service", "lead-service", "teammate-service",
                    "scheduler-service", "scheduler-service-2");
            int first = listed.get("scheduler-service");
            int second = listed.get("scheduler-service-2");
            assertThat(first).isEqualTo(up.ports()[4]);
            assertThat(second).isNotIn(up.ports()[0], up.ports()[1], up.ports()[2], up.ports()[3], up.ports()[4],
                    up.ports()[5], up.ports()[6]);

            Db jdbc = db(up, "scheduler-service");
            assertThat(jdbc.url()).isEqualTo("jdbc:postgresql://127.0.0.1:" + up.ports()[1] + "/cohort");
            // both firing loops run: each replica heartbeats its own instance id from its loop
            await("two live scheduler instances").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> liveInstances(jdbc), ids -> ids.size() == 2);

            List<String> jobs = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                jobs.add(createJob(i % 2 == 0 ? first : second, "tick " + i));
            }
            Map<String, Stored> stored = await("every job fired for " + MINUTES + " due minutes")
                    .atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> stored(jdbc, jobs), s -> s.size() == JOBS
                            && s.values().stream().allMatch(j -> j.fireCount() >= MINUTES));

            // every firing the store counts was acknowledged by the broker before it was committed: all of them are
            // before the topics' current ends
            // with the broker's address and SASL login that cohort up gave the scheduler
            Map<String, Object> kafka = ServiceEnvironment.kafkaClientProperties(pid(up, "scheduler-service"));
            assertThat(kafka).containsEntry("bootstrap.servers", "127.0.0.1:" + up.ports()[0]);
            List<JsonNode> events = records(kafka, Topics.EVENTS);
            List<JsonNode> prompts = records(kafka, Topics.PROMPTS);
            for (String job : jobs) {
                Stored s = stored.get(job);
                // the scheduler's own records are unsequenced (seq 0); lead-service republishes each one sequenced
                List<Instant> due = events.stream().filter(e -> e.path("type").asText().equals("cron_fired")
                                && e.path("seq").asLong() == 0 && e.path("data").path("jobId").asText().equals(job))
                        .map(e -> Instant.parse(e.path("data").path("dueAt").asText()))
                        .filter(d -> d.isBefore(s.nextFireAt())).toList();
                // as many due minutes as the store counts firings, each once, each a whole minute
                assertThat(due).as("job %s: its cron_fired records due before %s", job, s.nextFireAt())
                        .hasSize((int) s.fireCount()).doesNotHaveDuplicates()
                        .allMatch(d -> d.equals(d.truncatedTo(ChronoUnit.MINUTES)));
                List<String> wakeUps = prompts.stream()
                        .filter(p -> p.path("cronJobId").asText().equals(job)).map(p -> p.path("id").asText()).toList();
                assertThat(wakeUps).as("job %s: its wake-up prompts", job).hasSizeGreaterThanOrEqualTo((int) s.fireCount())
                        .doesNotHaveDuplicates();
            }
            System.out.println("[scheduler replicas] firings per instance: " + firingsPerInstance(runDir));

            UpCommandIT.signal(up, "TERM");
            UpCommandIT.assertNothingLeft(tmp, up, new ArrayList<>(seen), runDir);
            assertThat(UpCommandIT.listening(second)).isFalse();
        } finally {
            UpCommandIT.kill(up);
        }
    }

    private static Map<String, Integer> listed(UpCommandIT.Up up) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String line : up.out()) {
            Matcher m = LISTED.matcher(line);
            if (m.matches()) {
                out.put(m.group(1), Integer.parseInt(m.group(2)));
            }
        }
        return out;
    }

    /**
     * The database credentials of a listed service, as its process has them ({@code COHORT_DB_*} in its environment):
     * the local PostgreSQL wants a password, drawn anew by every {@code cohort up}.
     */
    private static Db db(UpCommandIT.Up up, String service) throws IOException {
        Map<String, String> env = ServiceEnvironment.of(pid(up, service));
        assertThat(env).containsKeys("COHORT_DB_URL", "COHORT_DB_USER", "COHORT_DB_PASSWORD");
        return new Db(env.get("COHORT_DB_URL"), env.get("COHORT_DB_USER"), env.get("COHORT_DB_PASSWORD"));
    }

    /** The pid of a listed service. */
    private static long pid(UpCommandIT.Up up, String service) {
        long pid = -1;
        for (String line : up.out()) {
            Matcher m = LISTED.matcher(line);
            if (m.matches() && m.group(1).equals(service)) {
                pid = Long.parseLong(m.group(3));
            }
        }
        assertThat(pid).as("the pid of %s in the start-up listing", service).isPositive();
        return pid;
    }

    private String createJob(int port, String prompt) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/v1/teams/default/crons")).timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("cron", "* * * * *", "prompt", prompt)))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return Json.MAPPER.readTree(r.body()).path("id").asText();
    }

    /** Scheduler instances that heartbeated within the last 30 s (the default interval is 5 s). */
    private static List<String> liveInstances(Db jdbc) throws SQLException {
        try (Connection c = jdbc.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT id FROM scheduler.instance WHERE heartbeat_at > now() - interval '30 seconds'");
                ResultSet rs = ps.executeQuery()) {
            List<String> ids = new ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
            return ids;
        }
    }

    /** The jobs' fire counts and next due minutes, read in one statement (one consistent snapshot). */
    private static Map<String, Stored> stored(Db jdbc, List<String> jobs) throws SQLException {
        try (Connection c = jdbc.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, fire_count, next_fire_at FROM scheduler.cron_job WHERE id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("text", jobs.toArray()));
            Map<String, Stored> out = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), new Stored(rs.getString(1), rs.getLong(2), rs.getTimestamp(3).toInstant()));
                }
            }
            return out;
        }
    }

    /** Every JSON record of {@code topic} up to its current end (all partitions). */
    private static List<JsonNode> records(Map<String, Object> kafka, String topic) {
        Properties p = new Properties();
        p.putAll(kafka);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<JsonNode> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end within 2 min");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
                        try {
                            out.add(Json.MAPPER.readTree(r.value()));
                        } catch (IOException e) {
                            // not JSON: no record of the scheduler's
                        }
                    }
                }
            }
        }
        return out;
    }

    /** How many firings each replica logged ({@code cron fired … instance=<id>}): printed, not asserted (who wins varies). */
    private static Map<String, Long> firingsPerInstance(Path runDir) throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        Pattern fired = Pattern.compile("cron fired .* instance=(\\S+)");
        for (String log : List.of("scheduler-service.log", "scheduler-service-2.log")) {
            for (String line : Files.readAllLines(runDir.resolve("logs").resolve(log))) {
                Matcher m = fired.matcher(line);
                if (m.find()) {
                    out.merge(log + " " + m.group(1), 1L, Long::sum);
                }
            }
        }
        return out;
    }
}

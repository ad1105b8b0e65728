package dev.cohort.examples.reviewer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.kafka.EmbeddedKafka;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.devstack.pg.LocalPostgres;
import dev.cohort.host.ownership.PartitionOwnership;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reviewer, a kind of agent that is one program, run as two replica processes on a real broker and a real
 * PostgreSQL with the scripted model: a request is answered by the replica that owns its partition; when that replica
 * is killed in the middle of a turn, the other one adopts the reviewer and finishes the turn from its last save; a
 * record that is not a request goes to the dead-letter topic.
 */
class ReviewerFailoverIT {

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int PARTITIONS = 4;

    private static LocalPostgres pg;
    private static EmbeddedKafka kafka;
    private static ScriptedModelServer model;
    private static Path dir;
    private static KafkaProducer<String, String> producer;
    private static final List<Process> replicas = new ArrayList<>();
    private static final List<ConsumerRecord<String, String>> seen = new CopyOnWriteArrayList<>();
    private static Thread reader;
    private static volatile boolean reading = true;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("cohort-reviewer-");
        pg = LocalPostgres.start(0);
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + Reviewer.SCHEMA);
            for (String file : List.of("V100__agent_host_tables.sql", "V101__agent_messages.sql")) {
                try (InputStream in = PartitionOwnership.class.getResourceAsStream("/db/agent-host/" + file)) {
                    s.execute(new String(in.readAllBytes(), StandardCharsets.UTF_8)
                            .replace("${flyway:defaultSchema}", Reviewer.SCHEMA));
                }
            }
        }
        kafka = EmbeddedKafka.start(0, List.of(Reviewer.REQUESTS, Reviewer.VERDICTS, Topics.DLQ), PARTITIONS);
        Properties props = new Properties();
        kafka.clientProperties().forEach((k, v) -> props.put(k, String.valueOf(v)));
        try (Writer out = Files.newBufferedWriter(dir.resolve("kafka.properties"))) {
            props.store(out, null);
        }
        model = ScriptedModelServer.start(0);
        // ann's first call hangs (her replica is killed during it); every reviewer call answers once its system
        // prompt shows the declared identity
        model.load("""
                {"rules":[
                 {"name":"hang","match":{"agentRegex":"^acme/ann","call":1},"reply":{"text":"too late","delayMs":600000}},
                 {"name":"verdict","match":{"system":"the code reviewer of team 'acme'","lastMessage":"review_request"},
                  "reply":{"text":"APPROVE: the change is small and tested."}}]}""");
        producer = new KafkaProducer<>(kafka.clientProperties(), new StringSerializer(), new StringSerializer());
        reader = Thread.ofPlatform().start(ReviewerFailoverIT::read);
    }

    @AfterAll
    static void stop() throws Exception {
        replicas.forEach(Process::destroyForcibly);
        reading = false;
        if (reader != null) {
            reader.join(Duration.ofSeconds(10));
        }
        if (producer != null) {
            producer.close();
        }
        for (AutoCloseable c : new AutoCloseable[] {model, kafka, pg}) {
            if (c != null) {
                c.close();
            }
        }
        if (dir != null) { // the replicas' logs and the broker's client login
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void aReplicaKilledMidTurnIsReplacedByTheOtherWhichFinishesTheReview() throws Exception {
        try {
            failover();
        } catch (Throwable t) {
            for (String name : List.of("a", "b")) {
                System.out.println("---- replica " + name + "\n" + Files.readString(dir.resolve(name + ".log")));
            }
            throw t;
        }
    }

    private void failover() throws Exception {
        Map<String, Process> running = new HashMap<>(Map.of("a", replica("a"), "b", replica("b")));
        Map<String, Set<Integer>> owned = await("both replicas own partitions").atMost(PATIENCE).ignoreExceptions()
                .pollInterval(Duration.ofMillis(500)).until(ReviewerFailoverIT::assignment,
                        m -> m.size() == 2 && m.values().stream().noneMatch(Set::isEmpty)
                                && m.values().stream().mapToInt(Set::size).sum() == PARTITIONS);

        // bob, on a partition of b's, is answered by a replica (the one hosting him)
        String bob = nameOn(owned.get("b"), "bob");
        request(bob, "r1", "Please review: rename getX to x.");
        JsonNode v1 = verdict("r1");
        assertThat(v1.path("replica").asText()).isIn("a", "b");
        assertThat(v1.path("verdict").asText()).startsWith("APPROVE");

        // ann, on a partition of a's: the replica hosting her turn is killed while it waits for the model
        String ann = nameOn(owned.get("a"), "ann");
        request(ann, "r2", "Please review: drop the retry loop.");
        await("ann's turn calls the model").atMost(PATIENCE).until(() -> calls("acme/" + ann) == 1);
        String killed = owner(ann);
        running.remove(killed).destroyForcibly().waitFor();
        String survivor = running.keySet().iterator().next();

        JsonNode v2 = verdict("r2");
        assertThat(v2.path("replica").asText()).isEqualTo(survivor);
        assertThat(v2.path("reviewer").asText()).isEqualTo(ann);
        assertThat(v2.path("outcome").asText()).isEqualTo("completed");
        List<RecordedRequest> annCalls = model.requests().stream().filter(r -> ("acme/" + ann).equals(r.agent()))
                .toList();
        assertThat(annCalls).extracting(RecordedRequest::rule).containsExactly("hang", "verdict");
        // the turn resumed from its last save: the request is in its conversation once
        assertThat(annCalls.getLast().body().path("messages").toString().split("drop the retry loop", -1)).hasSize(2);

        // a record that is not a request is a dead letter; the next one is still answered
        producer.send(new ProducerRecord<>(Reviewer.REQUESTS, "acme/" + bob, "{not json")).get();
        request(bob, "r3", "Please review: one more.");
        assertThat(verdict("r3").path("replica").asText()).isEqualTo(survivor);
        ConsumerRecord<String, String> dead = await("the bad record is a dead letter").atMost(PATIENCE)
                .until(() -> seen.stream().filter(r -> r.topic().equals(Topics.DLQ)).findFirst().orElse(null),
                        r -> r != null);
        assertThat(dead.value()).isEqualTo("{not json");
        assertThat(new String(dead.headers().lastHeader(Topics.DLQ_HEADER_TOPIC).value(), StandardCharsets.UTF_8))
                .isEqualTo(Reviewer.REQUESTS);
    }

    /** The replica that last adopted the reviewer (its row's {@code owner}). */
    private static String owner(String reviewer) throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                PreparedStatement ps = c.prepareStatement("SELECT owner FROM reviewer.agents WHERE team = 'acme' AND"
                        + " name = ?")) {
            ps.setString(1, reviewer);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("reviewer %s has a row", reviewer).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static Process replica(String name) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-Dorg.jboss.logging.provider=jdk", "-cp",
                System.getProperty("java.class.path"), Reviewer.class.getName());
        pb.environment().putAll(Map.of("REVIEWER_JDBC_URL", pg.jdbcUrl(), "REVIEWER_DB_USER", pg.username(),
                "REVIEWER_DB_PASSWORD", pg.password(), "REVIEWER_KAFKA_PROPERTIES",
                dir.resolve("kafka.properties").toString(), "REVIEWER_MODEL_URL", model.baseUrl(),
                "REVIEWER_REPLICA", name, "REVIEWER_SESSION_TIMEOUT_MS", "10000"));
        pb.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
        Process p = pb.start();
        replicas.add(p);
        return p;
    }

    /** The partitions of the request topic each replica (by client id) is assigned now. */
    private static Map<String, Set<Integer>> assignment() throws Exception {
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            ConsumerGroupDescription g = admin.describeConsumerGroups(List.of("cohort-reviewer")).all().get()
                    .get("cohort-reviewer");
            return g.members().stream().collect(Collectors.toMap(MemberDescription::clientId,
                    m -> m.assignment().topicPartitions().stream().map(TopicPartition::partition)
                            .collect(Collectors.toSet()), (x, y) -> x));
        }
    }

    /** A reviewer name, starting with {@code stem}, whose key falls on one of {@code partitions}. */
    private static String nameOn(Set<Integer> partitions, String stem) {
        for (int i = 0; ; i++) {
            String name = stem + i;
            if (partitions.contains(PartitionOwnership.partitionOf("acme/" + name, PARTITIONS))) {
                return name;
            }
        }
    }

    private static void request(String reviewer, String id, String text) throws Exception {
        AgentMessage m = new AgentMessage(id, "acme", "lead", reviewer, MessageType.MESSAGE, text, Map.of(), Instant.now());
        producer.send(new ProducerRecord<>(Reviewer.REQUESTS, "acme/" + reviewer, Json.write(m))).get();
    }

    private static JsonNode verdict(String request) {
        return await("the verdict on " + request).atMost(PATIENCE).until(() -> seen.stream()
                .filter(r -> r.topic().equals(Reviewer.VERDICTS)).map(r -> Json.read(r.value(), JsonNode.class))
                .filter(v -> v.path("request").asText().equals(request)).findFirst().orElse(null), v -> v != null);
    }

    private static long calls(String agent) {
        return model.requests().stream().filter(r -> agent.equals(r.agent())).count();
    }

    /** Everything on the verdict and dead-letter topics, from the start. */
    private static void read() {
        Map<String, Object> config = kafka.clientProperties();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            c.subscribe(List.of(Reviewer.VERDICTS, Topics.DLQ));
            while (reading) {
                c.poll(Duration.ofMillis(200)).forEach(seen::add);
            }
        }
    }
}

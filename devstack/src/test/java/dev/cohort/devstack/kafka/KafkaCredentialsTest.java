package dev.cohort.devstack.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embedded broker lets in only its own login: a client without credentials, with a wrong password or as an unknown
 * user is refused and writes or reads nothing; the controller port refuses clients too; no password is on disk.
 */
class KafkaCredentialsTest {

    static final String TOPIC = "creds.topic";
    static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start(0, List.of(TOPIC), 1);
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void theLoginIsUserCohortWithAFreshPasswordPerBroker() {
        assertThat(kafka.credentials().username()).isEqualTo(KafkaCredentials.USER);
        assertThat(kafka.credentials().password()).matches("[0-9a-f]{64}");
        assertThat(kafka.clientProperties()).containsEntry("bootstrap.servers", kafka.bootstrapServers())
                .containsEntry("security.protocol", "SASL_PLAINTEXT").containsEntry("sasl.mechanism", "SCRAM-SHA-256")
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"cohort\" password=\""
                        + kafka.credentials().password() + "\";");
        assertThat(kafka.credentials().toString()).doesNotContain(kafka.credentials().password());
        try (EmbeddedKafka other = EmbeddedKafka.start(0, List.of(), 1)) {
            assertThat(other.credentials().password()).isNotEqualTo(kafka.credentials().password());
        }
    }

    @Test
    void aClientWithoutCredentialsIsRefusedAndWritesNothing() throws Exception {
        Map<String, Object> plain = Map.of("bootstrap.servers", kafka.bootstrapServers());
        // the broker closes a connection that does not start with a SASL handshake: the client never gets metadata
        assertThatThrownBy(() -> produce(plain, "no-credentials")).hasRootCauseInstanceOf(TimeoutException.class);
        try (Admin admin = Admin.create(adminConfig(plain))) {
            assertThatThrownBy(() -> admin.describeCluster(new DescribeClusterOptions().timeoutMs(2_000)).nodes().get(10, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(TimeoutException.class);
        }
        assertThat(recordsAfterWritingAMarker("after-no-credentials")).containsExactly("after-no-credentials");
    }

    @Test
    void aClientWithAWrongPasswordOrAnUnknownUserGetsAnAuthenticationErrorAndReadsOrWritesNothing() throws Exception {
        for (KafkaCredentials wrong : List.of(KafkaCredentials.of(KafkaCredentials.USER, KafkaCredentials.newPassword()),
                KafkaCredentials.of("intruder", kafka.credentials().password()))) {
            Map<String, Object> config = wrong.clientProperties(kafka.bootstrapServers());
            assertThatThrownBy(() -> produce(config, "wrong-" + wrong.username())).satisfies(KafkaCredentialsTest::isAuthenticationFailure);
            Map<String, Object> consumerConfig = consumerConfig(config, "wrong-" + wrong.username());
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerConfig)) {
                c.subscribe(List.of(TOPIC));
                assertThatThrownBy(() -> c.poll(Duration.ofSeconds(10))).isInstanceOf(SaslAuthenticationException.class);
            }
        }
        assertThat(recordsAfterWritingAMarker("after-wrong-password")).containsExactly("after-wrong-password");
    }

    @Test
    void theControllerPortRefusesClientsWithOrWithoutTheClientLogin() {
        for (Map<String, Object> base : List.of(Map.<String, Object>of(), Map.<String, Object>of("security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", KafkaCredentials.MECHANISM, "sasl.jaas.config", kafka.credentials().jaasConfig()))) {
            Map<String, Object> config = new HashMap<>(base);
            config.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, "127.0.0.1:" + kafka.controllerPort());
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
            try (Admin admin = Admin.create(config)) {
                assertThatThrownBy(() -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(base.isEmpty() ? TimeoutException.class
                                : UnsupportedSaslMechanismException.class);
            }
        }
    }

    @Test
    void noPasswordIsInAnyFileOfTheBroker() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(kafka.dir())) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                if (content.contains(kafka.credentials().password()) || content.contains("user_controller")) {
                    found.add(f.toString());
                }
            }
        }
        assertThat(found).isEmpty();
        assertThat(kafka.dir().resolve("server.properties")).doesNotExist();
    }

    private static void isAuthenticationFailure(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof AuthenticationException)) {
            c = c.getCause();
        }
        assertThat(c).as("an AuthenticationException in %s", t).isInstanceOf(SaslAuthenticationException.class);
        assertThat(c.getMessage()).contains("invalid credentials");
    }

    private static void produce(Map<String, Object> base, String value) throws Exception {
        Map<String, Object> config = new HashMap<>(base);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(config)) {
            p.send(new ProducerRecord<>(TOPIC, "k", value)).get(30, TimeUnit.SECONDS);
        }
    }

    private static Map<String, Object> adminConfig(Map<String, Object> base) {
        Map<String, Object> config = new HashMap<>(base);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        return config;
    }

    private static Map<String, Object> consumerConfig(Map<String, Object> base, String group) {
        Map<String, Object> config = new HashMap<>(base);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return config;
    }

    /**
     * Writes {@code marker} with the broker's login and reads the topic from the start up to it (a fresh group): what
     * comes before the marker and is not an earlier marker was written by a client that should have been refused.
     */
    private static List<String> recordsAfterWritingAMarker(String marker) throws Exception {
        produce(kafka.clientProperties(), marker);
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerConfig(kafka.clientProperties(), "check-" + marker))) {
            c.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!seen.contains(marker) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.value()));
            }
        }
        seen.removeIf(v -> v.startsWith("after-") && !v.equals(marker));
        return seen;
    }
}

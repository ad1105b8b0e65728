package dev.cohort.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.devstack.kafka.EmbeddedKafka;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaClientProperties} against devstack's broker, which wants a SASL/SCRAM login: the settings a service gets
 * as environment variables ({@code KAFKA_SASL_JAAS_CONFIG} …) or {@code kafka.*} keys make a raw producer and consumer
 * that work; without them the same clients are refused; without security settings nothing is added.
 */
class KafkaClientPropertiesTest {

    static final String TOPIC = "client-properties.topic";
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
    void theServiceEnvironmentOfTheBrokerGivesRawClientsThatLogIn() throws Exception {
        Config config = config(kafka.serviceEnvironment());
        Map<String, Object> kafkaConfig = KafkaClientProperties.fromConfig(config);
        assertThat(kafkaConfig).isEqualTo(kafka.clientProperties());

        Map<String, Object> producer = KafkaClientProperties.producer(kafkaConfig);
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
            p.send(new ProducerRecord<>(TOPIC, "k", "with-login")).get(60, TimeUnit.SECONDS);
        }
        Map<String, Object> consumer = KafkaClientProperties.consumer(kafkaConfig);
        consumer.putAll(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "client-properties", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumer)) {
            c.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!read.contains("with-login") && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
            }
        }
        assertThat(read).containsExactly("with-login");
    }

    @Test
    void withoutTheLoginTheSameProducerIsRefused() {
        Map<String, Object> producer = KafkaClientProperties.producer(Map.of("bootstrap.servers", kafka.bootstrapServers()));
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
            assertThatThrownBy(() -> p.send(new ProducerRecord<>(TOPIC, "k", "without-login")).get(30, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(TimeoutException.class);
        }
    }

    @Test
    void eachKindOfClientKeepsItsOwnSettingsAndEverySecuritySetting() {
        Map<String, Object> kafkaConfig = Map.of("bootstrap.servers", "b:9092", "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", "x required;", "ssl.truststore.location", "/t",
                "group.id", "g", "acks", "all", "value.deserializer", "d");
        Map<String, Object> security = Map.of("bootstrap.servers", "b:9092", "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", "x required;", "ssl.truststore.location", "/t");
        assertThat(KafkaClientProperties.admin(kafkaConfig)).isEqualTo(security);
        assertThat(KafkaClientProperties.producer(kafkaConfig)).containsAllEntriesOf(security).containsEntry("acks", "all")
                .hasSize(security.size() + 1);
        assertThat(KafkaClientProperties.consumer(kafkaConfig)).containsAllEntriesOf(security).containsEntry("group.id", "g")
                .containsEntry("value.deserializer", "d").hasSize(security.size() + 2);
    }

    @Test
    void withoutSecuritySettingsNothingIsAdded() {
        Config config = config(Map.of("kafka.bootstrap.servers", "b:9092", "cohort.other", "x"));
        assertThat(KafkaClientProperties.fromConfig(config)).isEqualTo(Map.of("bootstrap.servers", "b:9092"));
        assertThat(KafkaClientProperties.producer(Map.of("bootstrap.servers", "b:9092"))).isEqualTo(Map.of("bootstrap.servers", "b:9092"));
    }

    private static Config config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(properties, "test", 300)).build();
    }
}

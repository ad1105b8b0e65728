package dev.cohort.devstack.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A real KRaft broker in this JVM: topics with partitions, and a record round trip through it. */
class EmbeddedKafkaTest {

    static final List<String> TOPICS = List.of("cohort.prompts", "cohort.lead.inbox", "cohort.teammate.inbox", "cohort.events",
            "cohort.dlq");
    static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start(0, TOPICS, EmbeddedKafka.DEFAULT_PARTITIONS);
        System.out.println("[embedded-kafka] KRaft broker up on " + kafka.bootstrapServers() + " in " + kafka.startupMillis() + " ms");
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void createsEveryRequestedTopicWithTheConfiguredPartitionsOnLoopback() throws Exception {
        assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
        try (Admin admin = Admin.create(kafka.clientProperties())) {
            Map<String, TopicDescription> d = admin.describeTopics(TOPICS).allTopicNames().get(60, TimeUnit.SECONDS);
            assertThat(d).containsOnlyKeys(TOPICS);
            assertThat(d.values()).allSatisfy(t -> assertThat(t.partitions()).hasSize(4));
        }
    }

    @Test
    void aRecordRoundTripsThroughTheBrokerWithItsKey() throws Exception {
        RecordMetadata meta;
        Map<String, Object> producerConfig = kafka.clientProperties();
        producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producerConfig)) {
            meta = p.send(new ProducerRecord<>("cohort.prompts", "default", "{\"team\":\"default\",\"text\":\"hi\"}")).get();
        }
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        Map<String, Object> consumerConfig = kafka.clientProperties();
        consumerConfig.putAll(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "rt", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerConfig)) {
            c.subscribe(List.of("cohort.prompts"));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (got.isEmpty() && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(got::add);
            }
        }
        assertThat(got).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("default");
            assertThat(r.value()).isEqualTo("{\"team\":\"default\",\"text\":\"hi\"}");
            assertThat(r.partition()).isEqualTo(meta.partition());
        });
    }

    @Test
    void aSecondBrokerInTheSameJvmGetsItsOwnPort() {
        try (EmbeddedKafka other = EmbeddedKafka.start(0, List.of("x"), 1)) {
            assertThat(other.port()).isNotEqualTo(kafka.port());
        }
    }
}

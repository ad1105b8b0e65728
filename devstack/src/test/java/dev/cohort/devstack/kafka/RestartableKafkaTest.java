package dev.cohort.devstack.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** A broker stopped and started again keeps its records, its committed offsets and its address. */
class RestartableKafkaTest {

    @Test
    void aRecordWrittenBeforeTheRestartAndTheGroupsCommittedOffsetSurviveOnTheSameAddress() throws Exception {
        try (RestartableKafka kafka = RestartableKafka.start(List.of("rk.topic"), 2)) {
            String address = kafka.bootstrapServers();
            produce(kafka, "k1", "before");
            assertThat(consume(kafka, "g", 1)).containsExactly("before"); // committed by the group
            produce(kafka, "k2", "second");

            kafka.stop();
            assertThat(kafka.isRunning()).isFalse();
            kafka.restart();

            assertThat(kafka.bootstrapServers()).isEqualTo(address);
            // the group resumes after its committed offset: only the record it had not read
            assertThat(consume(kafka, "g", 1)).containsExactly("second");
            // a new group reads everything that was written before the restart
            assertThat(consume(kafka, "fresh", 2)).containsExactlyInAnyOrder("before", "second");
        }
    }

    private static void produce(RestartableKafka kafka, String key, String value) throws Exception {
        Properties p = new Properties();
        p.putAll(kafka.clientProperties());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("rk.topic", key, value)).get();
        }
    }

    private static List<String> consume(RestartableKafka kafka, String group, int n) {
        Map<String, Object> c = kafka.clientProperties();
        c.putAll(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"));
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("rk.topic"));
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (out.size() < n && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    out.add(r.value());
                }
            }
            consumer.commitSync();
        }
        return out;
    }
}

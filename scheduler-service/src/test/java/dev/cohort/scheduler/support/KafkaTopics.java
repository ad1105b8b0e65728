package dev.cohort.scheduler.support;

import dev.cohort.platform.kafka.KafkaClientProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.ConfigProvider;

/** Reads what is on a topic with a plain consumer (no group), as an operator would: not the service's own code. */
public final class KafkaTopics {

    private KafkaTopics() {
    }

    /** Every record on the topic now, from the beginning up to the current end offsets. */
    public static List<ConsumerRecord<String, String>> readAll(String topic) {
        // the service's own connection settings: devstack's broker and its SASL login
        Map<String, Object> config = KafkaClientProperties.fromConfig(ConfigProvider.getConfig());
        config.putAll(Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(config)) {
            List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(60)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(p -> c.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(100)).forEach(out::add);
            }
        }
        return out;
    }
}

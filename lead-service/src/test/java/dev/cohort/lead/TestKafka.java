package dev.cohort.lead;

import dev.cohort.platform.kafka.KafkaClientProperties;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.function.Predicate;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;

/** Plain Kafka clients (not the service's code), as an external producer or an operator would use them. */
public final class TestKafka {
    private TestKafka() {
    }

    /**
     * The connection settings of the service under test (its {@code kafka.*} configuration: devstack's broker and SASL
     * login) followed by {@code settings}, key/value pairs.
     */
    static Map<String, Object> clientConfig(Object... settings) {
        Map<String, Object> config = KafkaClientProperties.fromConfig(ConfigProvider.getConfig());
        for (int i = 0; i < settings.length; i += 2) {
            config.put((String) settings[i], settings[i + 1]);
        }
        return config;
    }

    /** Sends one record and waits for the acknowledgement. */
    public static void send(String topic, String key, String value) {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(clientConfig(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            p.send(new ProducerRecord<>(topic, key, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sends one record with headers (name → UTF-8 value) and waits for the acknowledgement. */
    public static void send(String topic, String key, String value, Map<String, String> headers) {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(clientConfig(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            ProducerRecord<String, String> r = new ProducerRecord<>(topic, key, value);
            headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
            p.send(r).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads the topic from the beginning until a record matches or the timeout passes. */
    public static List<ConsumerRecord<String, String>> readUntil(String topic, Predicate<ConsumerRecord<String, String>> done,
            Duration timeout) {
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(clientConfig(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    seen.add(r);
                    if (done.test(r)) {
                        return seen;
                    }
                }
            }
        }
        return seen;
    }
}

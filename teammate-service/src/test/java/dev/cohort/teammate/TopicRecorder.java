package dev.cohort.teammate;

import dev.cohort.core.protocol.Topics;
import dev.cohort.platform.kafka.KafkaClientProperties;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Plain Kafka clients, as the lead or an external producer would use them: {@link #send} one record, and one consumer
 * per test JVM recording everything on the lead's inbox, the events and the dead letters ({@link #records}).
 */
public final class TopicRecorder {

    private static final List<ConsumerRecord<String, String>> RECORDS = new CopyOnWriteArrayList<>();
    private static KafkaProducer<String, String> producer;
    private static boolean started;

    private TopicRecorder() {
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

    /** Starts recording (from the topics' beginnings) once per JVM. */
    public static synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        Thread t = new Thread(() -> {
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(clientConfig(ConsumerConfig.GROUP_ID_CONFIG, "teammate-test-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
                c.subscribe(List.of(Topics.LEAD_INBOX, Topics.EVENTS, Topics.DLQ));
                while (true) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                        RECORDS.add(r);
                    }
                }
            }
        }, "topic-recorder");
        t.setDaemon(true);
        t.start();
    }

    /** The offset the consumer group {@code group} committed on {@code partition} of {@code topic} (-1: none yet). */
    public static long committed(String group, String topic, int partition) {
        try (Admin admin = Admin.create(
                clientConfig())) {
            var offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            var o = offsets.get(new TopicPartition(topic, partition));
            return o == null ? -1 : o.offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The records of {@code topic} seen so far. */
    public static List<ConsumerRecord<String, String>> records(String topic) {
        return RECORDS.stream().filter(r -> r.topic().equals(topic)).toList();
    }

    /** Sends one record and waits for the acknowledgement. */
    public static void send(String topic, String key, String value) {
        sendAt(topic, key, value);
    }

    /** Sends one record, waits for the acknowledgement and returns where it was written. */
    public static synchronized RecordMetadata sendAt(String topic, String key,
            String value) {
        if (producer == null) {
            producer = new KafkaProducer<>(clientConfig(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
        }
        try {
            return producer.send(new ProducerRecord<>(topic, key, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

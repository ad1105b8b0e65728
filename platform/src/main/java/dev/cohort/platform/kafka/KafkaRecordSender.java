package dev.cohort.platform.kafka;

import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Identifier;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The service's one plain Kafka producer for the records its agents send on their hot path: events on
 * {@code cohort.events} and agent messages on the inboxes ({@link KafkaEventSink}, {@link AgentMessagePublisher},
 * lead-service's {@code EventPublisher}). Plain rather than a SmallRye channel: a channel's
 * {@code Emitter.send} runs its whole Mutiny pipeline, context propagation and tracing decorators on the caller's
 * thread — 13–15 % of an agent thread's CPU samples, twice per round on the round's critical path — where
 * {@link Producer#send} serialises two strings, picks the partition and appends to the batch its network thread sends.
 *
 * <p>{@code acks=all}, idempotent, {@code linger.ms=0} (a record is sent alone and often waited for). Connection
 * settings are the {@code kafka.*} properties a producer knows ({@link KafkaClientProperties}: bootstrap servers, SASL, TLS), as for the channels. Created on first use
 * (a service that never sends has no producer); services warm it at start-up ({@link #warm}) so the first record does
 * not pay for the topic metadata. A record whose topic's metadata is known is appended without blocking; a send never
 * blocks longer than {@link #MAX_BLOCK} (a broker down at the very first send), and fails then.
 */
@ApplicationScoped
public class KafkaRecordSender implements RecordSender {

    /** The longest a send may block the caller (metadata of a topic not seen yet, a full buffer). */
    static final Duration MAX_BLOCK = Duration.ofSeconds(5);

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafkaConfig;

    private Producer<String, String> producer;

    @PostConstruct
    void init() {
        Map<String, Object> config = KafkaClientProperties.producer(kafkaConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) MAX_BLOCK.toMillis());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "cohort-" + ConfigProvider.getConfig()
                .getOptionalValue("quarkus.application.name", String.class).orElse("service") + "-records");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer = new KafkaProducer<>(config);
    }

    /**
     * Fetches the topics' metadata in the background (start-up does not wait for a broker that is down), so the first
     * record to each does not wait for it; logs what is missing.
     */
    public void warm(Collection<String> topics) {
        List<String> list = List.copyOf(topics);
        Thread.ofVirtual().name("kafka-record-sender-warm").start(() -> warmNow(list));
    }

    private void warmNow(List<String> topics) {
        for (String topic : topics) {
            try {
                producer.partitionsFor(topic);
            } catch (RuntimeException e) {
                Log.warnf("Kafka metadata for %s not available yet (the first record may be slower): %s", topic, e.toString());
            }
        }
    }

    @Override
    public CompletableFuture<Void> send(String topic, String key, String value, Headers headers) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(topic, null, key, value, headers), (metadata, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(null);
                }
            });
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }

    @PreDestroy
    void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }
}

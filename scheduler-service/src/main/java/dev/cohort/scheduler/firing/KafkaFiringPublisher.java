package dev.cohort.scheduler.firing;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.trace.Tracing;
import dev.cohort.platform.kafka.KafkaClientProperties;
import dev.cohort.platform.tracing.KafkaTracing;
import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends firings to Kafka with one plain, thread-safe producer ({@code acks=all}, idempotent): the wake-up record
 * first, and only once the broker acknowledged it, the {@code cron_fired} event, so an event never announces a
 * prompt that was not delivered. A plain producer rather than a messaging channel: each firing needs its own
 * acknowledgement, and all firings of a tick are in flight at once (a channel's stream measured ~12 ms per firing,
 * one after another). Connection settings are the {@code kafka.*} properties a producer knows
 * ({@link KafkaClientProperties}: bootstrap servers, SASL, TLS), as for the channels.
 */
@ApplicationScoped
public class KafkaFiringPublisher implements FiringPublisher {

    /** A send fails after this long without an acknowledgement, below the tick's publish timeout (10 s). */
    private static final int DELIVERY_TIMEOUT_MS = 8_000;
    private static final int REQUEST_TIMEOUT_MS = 5_000;
    /** Start-up and a send never block longer than this on a broker that is down; readiness reports that case. */
    private static final int MAX_BLOCK_MS = 10_000;

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafkaConfig;

    @Inject
    Tracing tracing;

    private Producer<String, String> producer;
    /** Events are sent after the prompt's acknowledgement, off the producer's I/O thread. */
    private final ExecutorService events = Executors.newVirtualThreadPerTaskExecutor();

    /** Created with the bean, which start-up forces ({@link #onStart}), so the first tick finds a warm producer. */
    @PostConstruct
    void init() {
        Map<String, Object> config = KafkaClientProperties.producer(kafkaConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "cohort-scheduler");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer = new KafkaProducer<>(config);
        // fetch metadata now, so the first firing does not pay for it (measured ~1.5 s on a cold producer)
        for (String topic : List.of(Topics.PROMPTS, Topics.TEAMMATE_INBOX, Topics.EVENTS)) {
            try {
                producer.partitionsFor(topic);
            } catch (RuntimeException e) {
                Log.warnf("Kafka metadata for %s not available yet (the first firing may be slower): %s", topic, e.toString());
            }
        }
    }

    void onStart(@Observes StartupEvent ev) {
        // observing start-up instantiates the bean, i.e. runs init() before traffic arrives
    }

    @PreDestroy
    void stop() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        events.shutdown();
    }

    @Override
    public CompletionStage<Void> publish(Firing firing) {
        FiringRecords.Out wake = FiringRecords.wakeUp(firing);
        return send(wake).thenComposeAsync(v -> {
            CompletableFuture<Void> event;
            try {
                event = send(FiringRecords.event(firing));
            } catch (RuntimeException e) {
                event = CompletableFuture.failedFuture(e);
            }
            return event.exceptionally(e -> {
                Log.warnf("cron_fired event not published team=%s job=%s: %s", firing.job().team(), firing.job().id(),
                        e.toString());
                return null;
            });
        }, events);
    }

    private CompletableFuture<Void> send(FiringRecords.Out out) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        // a raw producer writes the W3C context itself; a firing starts its own trace (publish span)
        KafkaTracing.Publish trace = KafkaTracing.publish(tracing, out.topic());
        acked.whenComplete((v, t) -> trace.done(t));
        try {
            producer.send(new ProducerRecord<>(out.topic(), null, out.key(), out.value(), trace.headers()), (metadata, error) -> {
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
}

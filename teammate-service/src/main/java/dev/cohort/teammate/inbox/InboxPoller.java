package dev.cohort.teammate.inbox;

import dev.cohort.core.protocol.Topics;
import dev.cohort.platform.kafka.KafkaClientProperties;
import dev.cohort.platform.kafka.RecordSender;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The consumer of {@code cohort.teammate.inbox}: one plain Kafka consumer on a thread of its own that polls, hands each
 * record to {@link InboxConsumer} on that same thread, and commits what was handled. A SmallRye channel handed every
 * record from its polling thread to the event loop and then to a worker thread (costing ~1.8 ms of the
 * message gap at p50 and more of its tail, measured against a plain consumer of the same topic).
 *
 * <p>What the channel did is kept:
 * <ul>
 *   <li><b>Configuration</b>: the consumer's settings are the {@code kafka.*} connection settings (bootstrap servers,
 *       SASL, TLS) with the {@code cohort.teammate-inbox.*} consumer properties over them, as a channel's were (group
 *       {@code cohort-teammate}, cooperative-sticky assignment, session timeout, …); environment overrides are
 *       {@code COHORT_TEAMMATE_INBOX_GROUP_ID} and so on. (They were {@code mp.messaging.incoming.teammate-inbox.*}: SmallRye
 *       refuses a channel's properties without a connector.)</li>
 *   <li><b>Ownership</b>: {@link TeammateOwnership} is told of every assignment and revoke (and a loss, as a revoke), on
 *       the polling thread, as the channel's rebalance listener was. Before a revoke is handed on, the offsets of the
 *       records handled so far are committed, so the new owner starts after them.</li>
 *   <li><b>At least once</b>: a record's offset is committed after it was handled (stored, or sent to the dead-letter
 *       topic); handling is redelivery-safe (ids, insert-if-new).</li>
 *   <li><b>Dead letters</b>: a record {@link InboxConsumer} throws on goes to {@code cohort.dlq} (the
 *       {@code dead-letter-queue.topic} property) with the original key, value and headers and the
 *       {@code dead-letter-reason}, {@code -cause}, {@code -topic}, {@code -partition}, {@code -offset} headers; the
 *       next record is handled. The dead letter is acknowledged by the broker before the record's offset is committed
 *       (a broker that cannot take it is retried: the record is never dropped).</li>
 * </ul>
 */
@ApplicationScoped
public class InboxPoller {

    /** The configuration prefix of the consumer: Kafka consumer properties, {@code topic}, {@code dead-letter-queue.topic}. */
    static final String PREFIX = "cohort.teammate-inbox.";

    private static final Duration POLL = Duration.ofSeconds(1);

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafkaConfig;

    @Inject
    InboxConsumer handler;

    @Inject
    TeammateOwnership ownership;

    @Inject
    RecordSender sender;

    @Inject
    InboxTopic topic; // created (or checked) before the first poll

    private volatile boolean running;
    private volatile Instant lastPoll;
    private Thread thread;
    private KafkaConsumer<String, String> consumer;
    /** The next offset to commit per partition: after the last record handled (the polling thread only). */
    private final Map<TopicPartition, OffsetAndMetadata> handled = new HashMap<>();

    void start(@Observes StartupEvent e) {
        topic.toString(); // its @PostConstruct created the topic
        consumer = new KafkaConsumer<>(config(kafkaConfig, ConfigProvider.getConfig()));
        running = true;
        thread = Thread.ofPlatform().name("teammate-inbox-consumer").start(this::run);
    }

    void stop(@Observes ShutdownEvent e) {
        running = false;
        KafkaConsumer<String, String> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            if (thread != null) {
                thread.join(Duration.ofSeconds(15));
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the polling thread is alive and has polled within {@code within}. */
    public boolean polling(Duration within) {
        Instant l = lastPoll;
        return running && thread != null && thread.isAlive() && l != null
                && l.isAfter(Instant.now().minus(within));
    }

    /**
     * The consumer's settings: the connection settings of {@code kafka.*} that a consumer knows, then every consumer
     * property under {@link #PREFIX}, then what this class relies on (String keys and values, its own commits).
     */
    static Map<String, Object> config(Map<String, Object> kafka, Config config) {
        Map<String, Object> out = KafkaClientProperties.consumer(kafka);
        for (String name : ConsumerConfig.configNames()) {
            config.getOptionalValue(PREFIX + name, String.class).ifPresent(v -> out.put(name, v));
        }
        out.putIfAbsent(ConsumerConfig.GROUP_ID_CONFIG, "cohort-teammate");
        out.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "cohort-teammate-inbox-" + Long.toHexString(System.nanoTime()));
        out.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        out.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        out.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return out;
    }

    private String topicName() {
        return ConfigProvider.getConfig().getOptionalValue(PREFIX + "topic", String.class).orElse(Topics.TEAMMATE_INBOX);
    }

    private String deadLetterTopic() {
        return ConfigProvider.getConfig().getOptionalValue(PREFIX + "dead-letter-queue.topic", String.class)
                .orElse(Topics.DLQ);
    }

    private void run() {
        String dlq = deadLetterTopic();
        try {
            consumer.subscribe(List.of(topicName()), new Listener());
            while (running) {
                ConsumerRecords<String, String> records;
                try {
                    records = consumer.poll(POLL);
                } catch (WakeupException e) {
                    break;
                } catch (RuntimeException e) {
                    // an error the client does not retry itself (authorisation, a fenced member): polled again
                    Log.warnf("polling %s failed, polling again in 1 s: %s", topicName(), e.toString());
                    sleep(1000);
                    continue;
                }
                lastPoll = Instant.now();
                if (records.isEmpty()) {
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> batch = new HashMap<>();
                for (ConsumerRecord<String, String> r : records) {
                    if (!handle(r, dlq)) {
                        break; // shutting down with a dead letter not yet acknowledged: not committed, redelivered
                    }
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    OffsetAndMetadata next = new OffsetAndMetadata(r.offset() + 1);
                    handled.put(tp, next);
                    batch.put(tp, next);
                }
                consumer.commitAsync(batch, (offsets, ex) -> {
                    if (ex != null) {
                        // the next commit covers these offsets; a redelivery meanwhile is a no-op
                        Log.debugf("commit of %s failed: %s", offsets, ex.toString());
                    }
                });
            }
        } catch (WakeupException e) {
            // shutting down
        } catch (RuntimeException e) {
            Log.errorf(e, "the consumer of %s stopped", topicName());
        } finally {
            try {
                if (!handled.isEmpty()) {
                    consumer.commitSync(handled, Duration.ofSeconds(5));
                }
            } catch (RuntimeException e) {
                Log.infof("offsets not committed at shutdown (the records are redelivered, and skipped): %s", e.toString());
            }
            consumer.close(Duration.ofSeconds(5));
            running = false;
        }
    }

    /** Hands a record to the handler; one it throws on goes to the dead-letter topic. False only when shutting down. */
    private boolean handle(ConsumerRecord<String, String> r, String dlq) {
        try {
            handler.onRecord(r);
            return true;
        } catch (RuntimeException e) {
            Log.warnf("record %s-%d@%d not handled, sent to %s: %s", r.topic(), r.partition(), r.offset(), dlq, e.getMessage());
            return deadLetter(r, e, dlq);
        }
    }

    private boolean deadLetter(ConsumerRecord<String, String> r, RuntimeException e, String dlq) {
        Headers h = new RecordHeaders(r.headers().toArray());
        put(h, Topics.DLQ_HEADER_REASON, e.getMessage() == null ? e.getClass().getName() : e.getMessage());
        if (e.getCause() != null) {
            put(h, "dead-letter-cause", String.valueOf(e.getCause().getMessage()));
        }
        put(h, "dead-letter-exception-class-name", e.getClass().getName());
        put(h, Topics.DLQ_HEADER_TOPIC, r.topic());
        put(h, "dead-letter-partition", Integer.toString(r.partition()));
        put(h, "dead-letter-offset", Long.toString(r.offset()));
        long backoff = 200;
        while (true) {
            try {
                sender.send(dlq, r.key(), r.value(), h).get(30, TimeUnit.SECONDS);
                return true;
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException | TimeoutException | RuntimeException ex) {
                if (!running) {
                    return false;
                }
                Log.warnf("cannot send record %s-%d@%d to %s yet, trying again: %s", r.topic(), r.partition(), r.offset(),
                        dlq, ex.toString());
                sleep(backoff);
                backoff = Math.min(5000, backoff * 2);
            }
        }
    }

    private static void put(Headers h, String name, String value) {
        h.remove(name);
        h.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Tells {@link TeammateOwnership} of the rebalance, after committing what was handled on the partitions leaving. */
    private final class Listener implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            ownership.onPartitionsAssigned(consumer, partitions);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> leaving = new HashMap<>();
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata o = handled.remove(tp);
                if (o != null) {
                    leaving.put(tp, o);
                }
            }
            if (!leaving.isEmpty()) {
                try {
                    consumer.commitSync(leaving, Duration.ofSeconds(5));
                } catch (RuntimeException e) {
                    Log.infof("offsets of revoked partitions not committed (their records are redelivered to the new"
                            + " owner, and skipped): %s", e.toString());
                }
            }
            ownership.onPartitionsRevoked(consumer, partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            partitions.forEach(handled::remove); // no longer ours: nothing can be committed for them
            ownership.onPartitionsLost(consumer, partitions);
        }
    }
}

package dev.cohort.teammate.inbox;

import dev.cohort.core.protocol.Topics;
import dev.cohort.host.service.InboxPoller;
import dev.cohort.platform.kafka.RecordSender;
import dev.cohort.teammate.agent.TeammateHost;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The consumer of {@code cohort.teammate.inbox}: agent-host's {@link InboxPoller} handing each
 * record to {@link InboxConsumer}, its rebalances to the teammates' ownership ({@link TeammateHost#service()}).
 * Its settings are the {@code kafka.*} connection settings (bootstrap servers, SASL, TLS) with the
 * {@code cohort.teammate-inbox.*} consumer properties over them (group {@code cohort-teammate}, cooperative-sticky
 * assignment, session timeout, …; environment overrides are {@code COHORT_TEAMMATE_INBOX_GROUP_ID} and so on), its
 * topic {@code cohort.teammate-inbox.topic} and its dead-letter topic {@code cohort.teammate-inbox.dead-letter-queue.topic}
 * ({@code cohort.dlq}).
 */
@ApplicationScoped
public class TeammateInboxPoller {

    /** The configuration prefix of the consumer: Kafka consumer properties, {@code topic}, {@code dead-letter-queue.topic}. */
    static final String PREFIX = "cohort.teammate-inbox.";

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafkaConfig;

    @Inject
    InboxConsumer handler;

    @Inject
    TeammateHost host;

    @Inject
    RecordSender sender;

    @Inject
    InboxTopic topic; // created (or checked) before the first poll

    private InboxPoller poller;

    void start(@Observes StartupEvent e) {
        topic.toString(); // its @PostConstruct created the topic
        Config config = ConfigProvider.getConfig();
        poller = new InboxPoller(
                config.getOptionalValue(PREFIX + "topic", String.class).orElse(Topics.TEAMMATE_INBOX),
                config.getOptionalValue(PREFIX + "dead-letter-queue.topic", String.class).orElse(Topics.DLQ),
                config(kafkaConfig, config), handler::onRecord, host.service().ownership(), sender)
                .start("teammate-inbox-consumer");
    }

    void stop(@Observes ShutdownEvent e) {
        if (poller != null) {
            poller.close();
        }
    }

    /** Whether the polling thread is alive and has polled within {@code within}. */
    public boolean polling(Duration within) {
        return poller != null && poller.polling(within);
    }

    /** The consumer's settings ({@link InboxPoller#config}, group {@code cohort-teammate}). */
    static Map<String, Object> config(Map<String, Object> kafka, Config config) {
        return InboxPoller.config(kafka, config, PREFIX, "cohort-teammate");
    }
}

package dev.cohort.teammate.inbox;

import dev.cohort.core.protocol.Topics;
import dev.cohort.platform.kafka.KafkaClientProperties;
import dev.cohort.teammate.config.TeammateConfig;
import io.quarkus.logging.Log;
import io.quarkus.runtime.Startup;
import io.smallrye.common.annotation.Identifier;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * At start-up, creates {@code cohort.teammate.inbox} with {@code cohort.teammate.partitions} partitions when it does
 * not exist yet (else the first producer's auto-creation would pick the broker's default). An existing topic is used
 * as it is (its partition count is logged when it differs): ownership follows whatever count the topic has.
 */
@Startup
@ApplicationScoped
public class InboxTopic {

    @Inject
    TeammateConfig config;

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafkaConfig;

    @PostConstruct
    void ensure() {
        if (config.partitions() < 1) {
            throw new IllegalArgumentException("cohort.teammate.partitions must be at least 1, was " + config.partitions());
        }
        // the connection settings of the channels (bootstrap servers, SASL, TLS), as every raw client of the service
        Map<String, Object> adminConfig = KafkaClientProperties.admin(kafkaConfig);
        adminConfig.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(adminConfig)) {
            String t = Topics.TEAMMATE_INBOX;
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(t)) {
                int n = admin.describeTopics(List.of(t)).allTopicNames().get(30, TimeUnit.SECONDS).get(t).partitions().size();
                if (n != config.partitions()) {
                    Log.infof("%s exists with %d partitions (cohort.teammate.partitions=%d applies to a new topic only)",
                            t, n, config.partitions());
                }
                return;
            }
            try {
                admin.createTopics(List.of(new NewTopic(t, config.partitions(), (short) -1))).all().get(30, TimeUnit.SECONDS);
                Log.infof("%s created with %d partitions", t, config.partitions());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking " + Topics.TEAMMATE_INBOX, e);
        } catch (Exception e) {
            // the consumer reports a broker that is down; a missing topic is then created by the first producer
            Log.warnf("cannot check or create %s with %d partitions: %s", Topics.TEAMMATE_INBOX, config.partitions(), e.toString());
        }
    }
}

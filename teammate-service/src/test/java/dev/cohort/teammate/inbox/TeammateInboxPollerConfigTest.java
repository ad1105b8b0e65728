package dev.cohort.teammate.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.teammate.inbox.TeammateInboxPoller;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The plain inbox consumer is configured as the SmallRye channel was: {@code kafka.*}, then the channel's properties. */
class TeammateInboxPollerConfigTest {

    private static Config config(Map<String, String> props) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(props, "test", 500)).build();
    }

    @Test
    void theChannelsConsumerPropertiesApplyOverTheConnectionSettingsAndTheRestIsLeftOut() {
        Map<String, Object> kafka = Map.of("bootstrap.servers", "broker:9092", "security.protocol", "SASL_SSL",
                "sasl.jaas.config", "secret-jaas", "group.id", "from-kafka", "linger.ms", "5", "topic", "x");
        Map<String, Object> out = TeammateInboxPoller.config(kafka, config(Map.of(
                TeammateInboxPoller.PREFIX + "group.id", "cohort-teammate",
                TeammateInboxPoller.PREFIX + "session.timeout.ms", "10000",
                TeammateInboxPoller.PREFIX + "partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
                TeammateInboxPoller.PREFIX + "dead-letter-queue.topic", "cohort.dlq",
                TeammateInboxPoller.PREFIX + "enable.auto.commit", "true")));

        assertThat(out).containsEntry("bootstrap.servers", "broker:9092")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.jaas.config", "secret-jaas")
                .containsEntry("group.id", "cohort-teammate")
                .containsEntry("session.timeout.ms", "10000")
                .containsEntry("partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
                // committed by the poller after a record is handled, whatever the properties say
                .containsEntry("enable.auto.commit", false)
                .doesNotContainKeys("linger.ms", "topic", "dead-letter-queue.topic");
    }

    @Test
    void withoutAGroupTheTeammatesGroupIsUsed() {
        Map<String, Object> out = TeammateInboxPoller.config(Map.of("bootstrap.servers", "b:9092"), config(Map.of()));
        assertThat(out).containsEntry("group.id", "cohort-teammate")
                // a partition without a committed offset is read from its start: nothing sent before is skipped
                .containsEntry("auto.offset.reset", "earliest");
    }
}

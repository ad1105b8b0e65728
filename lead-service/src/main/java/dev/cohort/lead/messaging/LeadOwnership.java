package dev.cohort.lead.messaging;

import dev.cohort.core.protocol.Topics;
import dev.cohort.lead.persistence.TeamRepository;
import dev.cohort.lead.service.LeadHost;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/**
 * Ownership follows Kafka partitions (ARCHITECTURE §3.1): when partitions of {@code cohort.prompts} are assigned
 * here, the leads of the teams on them are woken (an interrupted turn resumes from its last saved step); when they
 * are revoked, those leads are detached (their turns stay in progress, for the new owner to resume) and the revoke
 * returns only once none of them is inside a step, or after {@code cohort.lead.handover-timeout}: the new owner is
 * assigned the partitions after every revoke returned, so it does not resume a turn this replica still writes. A
 * team's partition is computed as Kafka's default partitioner does.
 */
@ApplicationScoped
@Identifier("lead-ownership")
public class LeadOwnership implements KafkaConsumerRebalanceListener {

    @Inject
    TeamRepository teams;

    @Inject
    LeadHost host;

    @Inject
    dev.cohort.lead.config.LeadConfig config;

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        List<String> mine = teamsOn(consumer, partitions);
        Log.infof("lead partitions assigned %s: hosting %s", partitions.stream().filter(p -> p.topic().equals(Topics.PROMPTS))
                .map(TopicPartition::partition).sorted().toList(), mine);
        Thread.ofVirtual().start(() -> host.adopt(mine));
    }

    @Override
    public void onPartitionsRevoked(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        List<String> leaving = teamsOn(consumer, partitions);
        if (!leaving.isEmpty()) {
            Log.infof("lead partitions revoked: handing over %s", leaving);
            host.detachAll(leaving, config.handoverTimeout());
        }
    }

    private List<String> teamsOn(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        Set<Integer> ids = partitions.stream().filter(p -> p.topic().equals(Topics.PROMPTS)).map(TopicPartition::partition)
                .collect(Collectors.toSet());
        if (ids.isEmpty()) {
            return List.of();
        }
        int count = consumer.partitionsFor(Topics.PROMPTS).size();
        return teams.list().stream().map(t -> t.id()).filter(t -> ids.contains(partitionOf(t, count))).toList();
    }

    /** Kafka's default partitioner for a String key. */
    public static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}

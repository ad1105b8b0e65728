package dev.cohort.host.ownership;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.jboss.logging.Logger;

/**
 * Ownership follows Kafka partitions (ARCHITECTURE §3.1): the agents whose key lands on a partition of
 * {@link #topic()} assigned here are adopted by the {@link #host()} (an interrupted turn resumes from its last saved
 * step); on a revoke they are detached and the revoke returns only once none of them is inside a step, or after
 * {@link #handoverTimeout()}: the new owner is assigned the partitions after every revoke returned, so it does not
 * resume a turn this replica still writes. An agent's partition is computed as Kafka's default partitioner does.
 * A service subclasses this with its directory of agents ({@link #keysOn}) and registers it as the consumer's
 * rebalance listener.
 */
public abstract class PartitionOwnership implements KafkaConsumerRebalanceListener {

    private static final Logger LOG = Logger.getLogger(PartitionOwnership.class);

    /** The topic whose partitions decide ownership. */
    protected abstract String topic();

    protected abstract AgentHost host();

    protected abstract Duration handoverTimeout();

    /** The known agents whose Kafka key falls on one of {@code partitions} of {@code count}. */
    protected abstract List<AgentKey> keysOn(Set<Integer> partitions, int count);

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        Set<Integer> ids = ids(partitions);
        List<AgentKey> mine = ids.isEmpty() ? List.of() : keysOn(ids, consumer.partitionsFor(topic()).size());
        LOG.infof("partitions %s of %s assigned: hosting %s", ids.stream().sorted().toList(), topic(), mine);
        // adopting reads and saves: not on the consumer's thread, which must go on polling
        Thread.ofVirtual().start(() -> host().adopt(mine));
    }

    @Override
    public void onPartitionsRevoked(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        Set<Integer> ids = ids(partitions);
        if (ids.isEmpty()) {
            return;
        }
        List<AgentKey> leaving = keysOn(ids, consumer.partitionsFor(topic()).size());
        if (!leaving.isEmpty()) {
            LOG.infof("partitions %s of %s revoked: handing over %s", ids.stream().sorted().toList(), topic(), leaving);
            host().detach(leaving, handoverTimeout());
        }
    }

    private Set<Integer> ids(Collection<TopicPartition> partitions) {
        return partitions.stream().filter(p -> p.topic().equals(topic())).map(TopicPartition::partition)
                .collect(Collectors.toSet());
    }

    /** Kafka's default partitioner for a String key. */
    public static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}

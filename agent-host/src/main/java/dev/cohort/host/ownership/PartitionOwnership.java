package dev.cohort.host.ownership;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.jboss.logging.Logger;

/**
 * Ownership follows Kafka partitions (ARCHITECTURE §3.1): the agents whose record key lands on a partition of the
 * topic assigned here are adopted by the host (an interrupted turn resumes from its last saved step); on a revoke they
 * are detached and the revoke returns only once none of them is inside a step, or after the hand-over timeout: the new
 * owner is assigned the partitions after every revoke returned, so it does not resume a turn this replica still
 * writes. An agent's partition is computed as Kafka's default partitioner does. A service registers one as its
 * inbox consumer's rebalance listener.
 */
public final class PartitionOwnership implements KafkaConsumerRebalanceListener {

    private static final Logger LOG = Logger.getLogger(PartitionOwnership.class);

    /** The agents a service knows, and the Kafka key their inbox records carry. */
    public interface Directory {
        /** Every agent of this kind that may be hosted now. */
        Collection<AgentKey> agents();

        /** The key of the agent's inbox records (what decides its partition). */
        String recordKey(AgentKey key);

        /** A directory of {@code agents}, each keyed by {@code recordKey}. */
        static Directory of(Supplier<? extends Collection<AgentKey>> agents, Function<AgentKey, String> recordKey) {
            Objects.requireNonNull(agents, "agents");
            Objects.requireNonNull(recordKey, "recordKey");
            return new Directory() {
                @Override
                public Collection<AgentKey> agents() {
                    return agents.get();
                }

                @Override
                public String recordKey(AgentKey key) {
                    return recordKey.apply(key);
                }
            };
        }
    }

    private final String topic;
    private final Supplier<AgentHost> host;
    private final Duration handoverTimeout;
    private final Directory directory;

    /**
     * @param topic           the topic whose partitions decide ownership
     * @param host            the host the agents run on (read at each rebalance, so it may be built later)
     * @param handoverTimeout how long a revoke waits for the agents leaving to be out of their steps
     */
    public PartitionOwnership(String topic, Supplier<AgentHost> host, Duration handoverTimeout, Directory directory) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.host = Objects.requireNonNull(host, "host");
        this.handoverTimeout = Objects.requireNonNull(handoverTimeout, "handoverTimeout");
        this.directory = Objects.requireNonNull(directory, "directory");
    }

    /** The topic whose partitions decide ownership. */
    public String topic() {
        return topic;
    }

    /** The known agents whose record key falls on one of {@code partitions} of {@code count}. */
    public List<AgentKey> keysOn(Set<Integer> partitions, int count) {
        return directory.agents().stream()
                .filter(k -> partitions.contains(partitionOf(directory.recordKey(k), count))).toList();
    }

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        Set<Integer> ids = ids(partitions);
        List<AgentKey> mine = ids.isEmpty() ? List.of() : keysOn(ids, consumer.partitionsFor(topic).size());
        LOG.infof("partitions %s of %s assigned: hosting %s", ids.stream().sorted().toList(), topic, mine);
        // adopting reads and saves: not on the consumer's thread, which must go on polling
        Thread.ofVirtual().start(() -> host.get().adopt(mine));
    }

    @Override
    public void onPartitionsRevoked(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        Set<Integer> ids = ids(partitions);
        if (ids.isEmpty()) {
            return;
        }
        List<AgentKey> leaving = keysOn(ids, consumer.partitionsFor(topic).size());
        if (!leaving.isEmpty()) {
            LOG.infof("partitions %s of %s revoked: handing over %s", ids.stream().sorted().toList(), topic, leaving);
            host.get().detach(leaving, handoverTimeout);
        }
    }

    private Set<Integer> ids(Collection<TopicPartition> partitions) {
        return partitions.stream().filter(p -> p.topic().equals(topic)).map(TopicPartition::partition)
                .collect(Collectors.toSet());
    }

    /** Kafka's default partitioner for a String key. */
    public static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}

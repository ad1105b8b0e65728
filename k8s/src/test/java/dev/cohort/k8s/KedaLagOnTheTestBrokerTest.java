package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * KEDA's replica formula against real consumer-group lag: for each build with a kafka-triggered ScaledObject, a topic
 * with the KafkaTopic's partition count is created on the devstack KRaft broker, N records are produced and left
 * unconsumed by the trigger's consumer group, the lag is read back with the admin client exactly as KEDA reads it
 * (latest offsets − committed offsets), and the replica count the built ScaledObject implies is asserted.
 */
class KedaLagOnTheTestBrokerTest {

    static EmbeddedKafka kafka;
    static Admin admin;

    /** A kafka trigger of a build, with the partition count of its topic. */
    record Trigger(String build, JsonNode scaledObject, JsonNode metadata, int partitions) {
        @Override
        public String toString() {
            return build + " " + Manifest.id(scaledObject);
        }
    }

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.start(0, List.of(), 1);
        admin = Admin.create(kafka.clientProperties());
    }

    @AfterAll
    static void stopBroker() {
        if (admin != null) {
            admin.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    static Stream<Trigger> triggers() {
        List<Path> builds = new ArrayList<>(Manifest.overlays());
        builds.add(Manifest.testResources().resolve("fixture"));
        List<Trigger> out = new ArrayList<>();
        for (Path b : builds) {
            Manifest m = Manifest.of(b);
            for (var t : CrossReferences.kafkaTriggers(m)) {
                int partitions = CrossReferences.kafkaTopic(m, t.getValue().path("topic").asText())
                        .map(kt -> kt.path("spec").path("partitions").asInt()).orElseThrow();
                out.add(new Trigger(m.name(), t.getKey(), t.getValue(), partitions));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("triggers")
    void theReplicaCountTheScaledObjectImpliesFollowsTheRealLagOfItsGroup(Trigger t) throws Exception {
        KedaKafkaScaler scaler = KedaKafkaScaler.of(t.scaledObject(), t.metadata());
        int p = t.partitions();
        int ceiling = Math.min(scaler.maxReplicas(), p);
        assertThat(ceiling).as("room to scale: min(maxReplicaCount, partitions) above minReplicaCount").isGreaterThan(Math.max(1, scaler.minReplicas()));
        String topic = t.metadata().path("topic").asText() + "." + t.build().replaceAll("[^A-Za-z0-9]", "-");
        String group = t.metadata().path("consumerGroup").asText();
        admin.createTopics(List.of(new NewTopic(topic, p, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Set<TopicPartition> partitions = IntStream.range(0, p).mapToObj(i -> new TopicPartition(topic, i)).collect(Collectors.toSet());

        // nothing produced yet: no lag, the minimum
        commitAtStart(group, partitions);
        assertThat(scaler.desiredReplicas(lag(scaler, partitions, group))).isEqualTo(scaler.minReplicas());

        // (k − 1) × lagThreshold + 1 records, spread over the partitions and left unconsumed → exactly k replicas
        int k = Math.max(2, ceiling / 2 + 1);
        long n = (k - 1) * scaler.lagThreshold() + 1;
        produce(topic, p, n);
        assertThat(latestTotal(partitions)).isEqualTo(n);
        long lag = lag(scaler, partitions, group);
        assertThat(lag).as("the group's lag as KEDA reads it").isEqualTo(n);
        assertThat(scaler.desiredReplicas(lag)).isEqualTo(k);

        // far more than max × threshold → capped at min(maxReplicaCount, partitions), never an idle consumer
        produce(topic, p, (long) (scaler.maxReplicas() + 1) * scaler.lagThreshold());
        assertThat(scaler.desiredReplicas(lag(scaler, partitions, group))).isEqualTo(ceiling);

        // a group that never committed: what offsetResetPolicy says (earliest counts every record, latest one per partition)
        String fresh = group + "-fresh";
        long expectedFresh = scaler.offsetResetPolicy().equals("latest") ? p : latestTotal(partitions);
        long capped = Math.min(expectedFresh, (long) p * scaler.lagThreshold());
        assertThat(lag(scaler, partitions, fresh)).isEqualTo(capped);

        // the group consumes (commits) all but lagThreshold + 1 records → 2 replicas
        Map<TopicPartition, Long> latest = latest(partitions);
        Map<TopicPartition, OffsetAndMetadata> almost = new HashMap<>();
        long remaining = scaler.lagThreshold() + 1;
        for (TopicPartition tp : partitions) {
            long keep = Math.min(remaining, latest.get(tp));
            remaining -= keep;
            almost.put(tp, new OffsetAndMetadata(latest.get(tp) - keep));
        }
        admin.alterConsumerGroupOffsets(group, almost).all().get(30, TimeUnit.SECONDS);
        assertThat(lag(scaler, partitions, group)).isEqualTo(scaler.lagThreshold() + 1);
        assertThat(scaler.desiredReplicas(lag(scaler, partitions, group))).isEqualTo(Math.max(2, scaler.minReplicas()));
    }

    /**
     * Commits offset 0 on every partition. The topic was just created: until the broker's metadata cache has it, the
     * group coordinator answers {@code UnknownTopicOrPartitionException} (seen once under {@code stress-ng}, 2026-12-04),
     * a retriable error, so the commit is made again until it is taken (at most 30 s).
     */
    private static void commitAtStart(String group, Set<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> zero = partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> new OffsetAndMetadata(0)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                admin.alterConsumerGroupOffsets(group, zero).all().get(30, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50); // the metadata of a new topic reaches the cache on its own; poll for it
            }
        }
    }

    private static void produce(String topic, int partitions, long n) throws Exception {
        Map<String, Object> config = kafka.clientProperties();
        config.putAll(Map.of(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(), ProducerConfig.ACKS_CONFIG, "all"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (long i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(topic, (int) (i % partitions), "default/t" + i, "{\"n\":" + i + "}"));
            }
            producer.flush();
        }
    }

    private static Map<TopicPartition, Long> latest(Set<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> r = admin
                .listOffsets(partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()))).all().get(30, TimeUnit.SECONDS);
        return r.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private static long latestTotal(Set<TopicPartition> partitions) throws Exception {
        return latest(partitions).values().stream().mapToLong(Long::longValue).sum();
    }

    /** totalLag as KEDA computes it from the broker: latest offsets and the group's committed offsets. */
    private static long lag(KedaKafkaScaler scaler, Set<TopicPartition> partitions, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        Map<Integer, Long> latestByPartition = new HashMap<>();
        Map<Integer, Long> committedByPartition = new HashMap<>();
        for (var e : latest(partitions).entrySet()) {
            latestByPartition.put(e.getKey().partition(), e.getValue());
            OffsetAndMetadata c = committed.get(e.getKey());
            if (c != null) {
                committedByPartition.put(e.getKey().partition(), c.offset());
            }
        }
        return scaler.totalLag(latestByPartition, committedByPartition);
    }
}

package dev.cohort.host.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentProgram;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.HostSettings;
import dev.cohort.core.host.Next;
import dev.cohort.core.testing.InMemoryAgentStore;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.devstack.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionOwnership} under the cooperative-sticky assignor (teammate-service's), with a real broker and two
 * real consumers of one group: the listener is told only the partitions that move (incremental), and since it treats
 * every call as a change, each host ends up hosting exactly the agents on its partitions; a member joining moves only
 * what it takes, the agents on the partitions the first member keeps are never handed over; a member leaving gives its
 * agents back to the other one.
 */
class PartitionOwnershipCooperativeTest {

    static final String TOPIC = "ownership.coop";
    static final int PARTITIONS = 6;
    static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start(0, List.of(TOPIC), PARTITIONS);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    /** 24 agents spread over the partitions. */
    static final List<AgentKey> AGENTS = IntStream.range(0, 24).mapToObj(i -> new AgentKey("t", "a" + i)).toList();

    @Test
    void aJoiningMemberTakesOnlyItsPartitionsAgentsAndALeavingOneGivesThemBack() throws Exception {
        String group = "coop-" + UUID.randomUUID();
        InMemoryAgentStore store = new InMemoryAgentStore();
        Member one = new Member("one", group, store);
        Member two = new Member("two", group, store);
        try {
            one.start();
            await().atMost(Duration.ofMinutes(2)).until(() -> one.assigned.size() == PARTITIONS);
            await().atMost(Duration.ofMinutes(2)).until(() -> AGENTS.stream().allMatch(k -> "one".equals(owner(store, k))));
            assertThat(one.hosted()).containsExactlyInAnyOrderElementsOf(AGENTS);

            two.start();
            await().atMost(Duration.ofMinutes(2)).until(() -> !two.assigned.isEmpty()
                    && one.assigned.size() + two.assigned.size() == PARTITIONS
                    && disjoint(one.assigned, two.assigned));
            // incremental: one was asked to give up only what two took, and was never handed all of them again
            Set<Integer> moved = new HashSet<>(two.assigned);
            assertThat(one.revokedCalls).isNotEmpty().allSatisfy(r -> assertThat(moved).containsAll(r));
            assertThat(one.revokedCalls.stream().flatMap(Set::stream).collect(Collectors.toSet())).isEqualTo(moved);
            assertThat(one.assignedCalls.getFirst()).hasSize(PARTITIONS);
            assertThat(one.assignedCalls.subList(1, one.assignedCalls.size())).allSatisfy(a -> assertThat(a).isEmpty());
            // each host hosts exactly the agents of its partitions; the moved ones were adopted by two
            assertThat(one.hosted()).containsExactlyInAnyOrderElementsOf(on(one.assigned));
            assertThat(two.hosted()).containsExactlyInAnyOrderElementsOf(on(two.assigned));
            await().atMost(Duration.ofMinutes(2)).until(() -> on(two.assigned).stream().allMatch(k -> "two".equals(owner(store, k))));
            assertThat(on(one.assigned)).allSatisfy(k -> assertThat(owner(store, k)).isEqualTo("one"));
            // the agents one kept were never detached there
            assertThat(one.detached).doesNotContainAnyElementsOf(on(one.assigned));

            two.stop();
            await().atMost(Duration.ofMinutes(2)).until(() -> one.assigned.size() == PARTITIONS);
            await().atMost(Duration.ofMinutes(2)).until(() -> AGENTS.stream().allMatch(k -> "one".equals(owner(store, k))));
            assertThat(one.hosted()).containsExactlyInAnyOrderElementsOf(AGENTS);
        } finally {
            two.stop();
            one.stop();
        }
    }

    static boolean disjoint(Set<Integer> a, Set<Integer> b) {
        return a.stream().noneMatch(b::contains);
    }

    static List<AgentKey> on(Set<Integer> partitions) {
        return AGENTS.stream().filter(k -> partitions.contains(PartitionOwnership.partitionOf(k.id(), PARTITIONS))).toList();
    }

    static String owner(InMemoryAgentStore store, AgentKey k) {
        InMemoryAgentStore.Row r = store.row(k);
        return r == null ? null : r.owner();
    }

    /** One consumer of the group with its own host, the ownership listener between them. */
    static final class Member {
        final String name;
        final String group;
        final AgentHost host;
        final Set<Integer> assigned = ConcurrentHashMap.newKeySet();
        final List<Set<Integer>> assignedCalls = new CopyOnWriteArrayList<>();
        final List<Set<Integer>> revokedCalls = new CopyOnWriteArrayList<>();
        final Set<AgentKey> adopted = ConcurrentHashMap.newKeySet();
        final Set<AgentKey> detached = ConcurrentHashMap.newKeySet();
        private volatile boolean running;
        private Thread thread;

        Member(String name, String group, InMemoryAgentStore store) {
            this.name = name;
            this.group = group;
            AgentEngine engine = AgentEngine.builder().model(r -> new ModelClient.Reply("ok", List.of(), "stop", 1, 1, null))
                    .tools(ToolRegistry.of()).bundledSkills(List.of()).build();
            this.host = new AgentHost(engine, store, new IdleProgram(), HostSettings.defaults(name)
                    .withHandoverTimeout(Duration.ofSeconds(5)));
        }

        /** The agents this member's host holds: adopted and not handed over since. */
        Set<AgentKey> hosted() {
            Set<AgentKey> s = new HashSet<>(adopted);
            return s;
        }

        void start() {
            running = true;
            PartitionOwnership ownership = new PartitionOwnership(TOPIC, () -> host, Duration.ofSeconds(5),
                    new PartitionOwnership.Directory() {
                        @Override
                        public Collection<AgentKey> agents() {
                            return AGENTS;
                        }

                        @Override
                        public String recordKey(AgentKey key) {
                            return key.id();
                        }
                    });
            thread = new Thread(() -> {
                Map<String, Object> config = kafka.clientProperties();
                config.putAll(Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG, group,
                        ConsumerConfig.CLIENT_ID_CONFIG, name,
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName(),
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
                try (KafkaConsumer<String, String> c = new KafkaConsumer<>(config)) {
                    c.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                            Set<Integer> ids = ids(parts);
                            assignedCalls.add(ids);
                            assigned.addAll(ids);
                            adopted.addAll(ownership.keysOn(ids, PARTITIONS));
                            ownership.onPartitionsAssigned(c, parts);
                        }

                        @Override
                        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                            Set<Integer> ids = ids(parts);
                            if (!ids.isEmpty()) {
                                revokedCalls.add(ids);
                            }
                            ownership.onPartitionsRevoked(c, parts);
                            List<AgentKey> leaving = ownership.keysOn(ids, PARTITIONS);
                            adopted.removeAll(leaving);
                            detached.addAll(leaving);
                            assigned.removeAll(ids);
                        }
                    });
                    while (running) {
                        c.poll(Duration.ofMillis(100));
                    }
                }
            }, "member-" + name);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            if (thread != null) {
                thread.join(Duration.ofMinutes(1));
            }
            host.close();
        }

        private static Set<Integer> ids(Collection<TopicPartition> parts) {
            return parts.stream().map(TopicPartition::partition).collect(Collectors.toSet());
        }
    }

    /** Agents with nothing to do: adopted (the store records the owner), then idle. */
    static final class IdleProgram implements AgentProgram {
        @Override
        public boolean exists(AgentKey key) {
            return true;
        }

        @Override
        public AgentContext context(AgentKey key, AgentRecord record) {
            return AgentContext.of(key.team(), key.name(), AgentRole.TEAMMATE,
                    (tool, id, args, target) -> ToolOutcome.failure("no workspace"));
        }

        @Override
        public Next next(AgentKey key, AgentSession session) {
            return Next.idle();
        }

        @Override
        public void stopped(AgentKey key, TurnResult result) {
        }

        @Override
        public void abandoned(AgentKey key, String turnId, String message) {
        }
    }
}

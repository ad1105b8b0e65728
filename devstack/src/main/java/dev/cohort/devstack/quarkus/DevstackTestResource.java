package dev.cohort.devstack.quarkus;

import dev.cohort.devstack.Devstack;
import dev.cohort.devstack.kafka.EmbeddedKafka;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Quarkus test resource for a whole module: Kafka, PostgreSQL and the scripted model, started once per JVM and
 * shared by every Quarkus boot of that JVM (a JVM-wide singleton, stopped by a shutdown hook), so a module's
 * test classes cost one broker and one database however many times Quarkus restarts.
 *
 * <p>Init arg {@code topics}: comma-separated topics to create (services pass {@code Topics.ALL_CSV}).
 */
public class DevstackTestResource implements QuarkusTestResourceLifecycleManager {

    private static Devstack shared;
    private List<String> topics = List.of();

    @Override
    public void init(Map<String, String> initArgs) {
        String t = initArgs.get("topics");
        if (t != null && !t.isBlank()) {
            topics = Arrays.stream(t.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        }
    }

    @Override
    public Map<String, String> start() {
        return stack(topics).quarkusConfig();
    }

    /** The JVM's shared stack, started on first use. */
    public static synchronized Devstack stack(List<String> topics) {
        if (shared == null) {
            Devstack s = Devstack.start(0, topics, EmbeddedKafka.DEFAULT_PARTITIONS, 0, 0);
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "cohort-devstack-stop"));
            shared = s;
        }
        return shared;
    }

    @Override
    public void stop() {
        // shared for the JVM's lifetime: later Quarkus boots in the same JVM reuse it; the shutdown hook stops it
    }
}

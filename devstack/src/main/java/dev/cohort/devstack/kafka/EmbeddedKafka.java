package dev.cohort.devstack.kafka;

import dev.cohort.devstack.Ports;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node KRaft Kafka broker in this JVM, bound to loopback only.
 *
 * <p>Sequence: pick ports → write {@code server.properties} in a temp dir → format the storage exactly like
 * {@code kafka-storage.sh format} → start {@link KafkaRaftServer} → wait until the cluster answers → create the
 * requested topics. {@link #close()} shuts the broker down and deletes the temp dir.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Partitions per topic: more than one so ownership-by-partition is exercised, few enough to start fast. */
    public static final int DEFAULT_PARTITIONS = 4;

    private final Path dir;
    private final int port;
    private final KafkaRaftServer server;
    private final long startupMillis;
    private volatile boolean closed;

    private EmbeddedKafka(Path dir, int port, KafkaRaftServer server, long startupMillis) {
        this.dir = dir;
        this.port = port;
        this.server = server;
        this.startupMillis = startupMillis;
    }

    /**
     * Starts a broker.
     *
     * @param port the client port, 0 for a free one
     * @param topics topics to create
     * @param partitions partitions per created topic
     */
    public static EmbeddedKafka start(int port, Collection<String> topics, int partitions) {
        long t0 = System.nanoTime();
        int clientPort = Ports.orFree(port);
        int controllerPort = Ports.free();
        Path dir;
        try {
            dir = Files.createTempDirectory("cohort-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Properties p = singleNode(clientPort, controllerPort, dir, partitions);
        // no fsync per message: a test broker's logs need not survive a power cut
        p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        format(p, dir, "cohort embedded broker");
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p, false), Time.SYSTEM);
        server.startup();
        String bootstrap = "127.0.0.1:" + clientPort;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            waitReady(admin, Duration.ofSeconds(60));
            createTopics(admin, topics, partitions);
        } catch (RuntimeException e) {
            server.shutdown();
            deleteQuietly(dir);
            throw e;
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return new EmbeddedKafka(dir, clientPort, server, ms);
    }

    private static void waitReady(Admin admin, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            sleep(50);
        }
        throw new IllegalStateException("kafka broker not ready within " + timeout, last);
    }

    /** The configuration of a single-node KRaft broker on loopback, its logs under {@code dir} (shared by the brokers). */
    static Properties singleNode(int clientPort, int controllerPort, Path dir, int partitions) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + clientPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dir.resolve("logs").toString());
        // a single node: every internal topic has exactly one replica
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("num.partitions", String.valueOf(partitions));
        // consumer groups form at once instead of waiting 3 s for more members
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "true");
        // the log cleaner (compacted topics: consumer offsets, ...) allocates its dedupe buffer on the heap at start,
        // 128 MB by default: one humongous array that kept G1's old generation over its threshold in the JVM holding
        // the broker (cohort up's, a benchmark's), so concurrent marking cycles ran back to back and their remark
        // pauses stalled the broker for up to ~18 ms every second or two. 8 MB dedupes ~300,000 keys per pass, far more
        // than a development broker's compacted topics hold.
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        return p;
    }

    /** Writes {@code p} as {@code dir/server.properties} and formats the storage; on failure {@code dir} is deleted. */
    static void format(Properties p, Path dir, String comment) {
        Path propsFile = dir.resolve("server.properties");
        try (var out = Files.newOutputStream(propsFile)) {
            p.store(out, comment);
        } catch (IOException e) {
            deleteQuietly(dir);
            throw new UncheckedIOException(e);
        }
        ByteArrayOutputStream formatOut = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(formatOut, true, StandardCharsets.UTF_8)) {
            int rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", propsFile.toString()}, ps);
            if (rc != 0) {
                throw new IllegalStateException("kafka storage format failed (rc " + rc + "): " + formatOut.toString(StandardCharsets.UTF_8));
            }
        } catch (Exception e) {
            deleteQuietly(dir);
            throw e instanceof RuntimeException re ? re : new IllegalStateException("kafka storage format failed", e);
        }
    }

    /** Creates topics that do not exist yet; existing ones are left as they are. */
    public static void createTopics(Admin admin, Collection<String> topics, int partitions) {
        List<NewTopic> wanted = new ArrayList<>();
        for (String t : topics) {
            wanted.add(new NewTopic(t, partitions, (short) 1));
        }
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            wanted.removeIf(nt -> existing.contains(nt.name()));
            if (!wanted.isEmpty()) {
                admin.createTopics(wanted).all().get(30, TimeUnit.SECONDS);
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create topics " + topics + ": " + e.getCause(), e.getCause());
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topics " + topics, e);
        }
    }

    /** {@code 127.0.0.1:<port>}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** How long {@link #start} took, for the "ready in" line. */
    public long startupMillis() {
        return startupMillis;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            deleteQuietly(dir);
        }
    }

    static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // best effort: a file still held open is removed with the JVM's temp cleanup
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

package dev.cohort.devstack.kafka;

import dev.cohort.devstack.Ports;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
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
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node KRaft Kafka broker in this JVM, bound to loopback only, that lets no client in without a login.
 *
 * <p>Sequence: pick ports and draw the passwords → write {@code server.properties} in a temp dir → format the storage
 * exactly like {@code kafka-storage.sh format}, with the client login's SCRAM credential added to the cluster metadata
 * → delete {@code server.properties} (it names the passwords) → start {@link KafkaRaftServer} → wait until the
 * cluster answers → create the requested topics. {@link #close()} shuts the broker down and deletes the temp dir.
 *
 * <p>Both listeners need SASL: a command with network access reaches any port on loopback. The client listener takes
 * SCRAM-SHA-256 for user {@value KafkaCredentials#USER} ({@link #credentials()}); the controller listener takes PLAIN
 * for a user of its own whose password never leaves this JVM (the controller must authenticate its peers before it
 * has read the metadata that holds SCRAM credentials, so Kafka allows no SCRAM there). Without that, an admin client
 * pointed at the controller port ({@code bootstrap.controllers}) could change the client login.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Partitions per topic: more than one so ownership-by-partition is exercised, few enough to start fast. */
    public static final int DEFAULT_PARTITIONS = 4;

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final KafkaRaftServer server;
    private final KafkaCredentials credentials;
    private final long startupMillis;
    private volatile boolean closed;

    private EmbeddedKafka(Path dir, int port, int controllerPort, KafkaCredentials credentials, KafkaRaftServer server,
            long startupMillis) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.credentials = credentials;
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
        return start(port, topics, partitions, KafkaCredentials.generate());
    }

    /**
     * As {@link #start(int, Collection, int)}, with the client login chosen by the caller: for a process that hands the
     * credentials out before the broker exists.
     */
    public static EmbeddedKafka start(int port, Collection<String> topics, int partitions, KafkaCredentials credentials) {
        long t0 = System.nanoTime();
        int clientPort = Ports.orFree(port);
        int controllerPort = Ports.free();
        Path dir;
        try {
            dir = Files.createTempDirectory("cohort-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Properties p = singleNode(clientPort, controllerPort, dir, partitions, credentials);
        // no fsync per message: a test broker's logs need not survive a power cut
        p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        format(p, dir, "cohort embedded broker", credentials);
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p, false), Time.SYSTEM);
        server.startup();
        String bootstrap = "127.0.0.1:" + clientPort;
        try (Admin admin = Admin.create(credentials.clientProperties(bootstrap))) {
            waitReady(admin, Duration.ofSeconds(60));
            createTopics(admin, topics, partitions);
        } catch (RuntimeException e) {
            server.shutdown();
            deleteQuietly(dir);
            throw e;
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return new EmbeddedKafka(dir, clientPort, controllerPort, credentials, server, ms);
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

    /**
     * The configuration of a single-node KRaft broker on loopback, its logs under {@code dir} (shared by the brokers):
     * listener {@code CLIENT} (SASL/SCRAM-SHA-256, {@code credentials}; also the inter-broker listener, which logs in
     * with them) and {@code CONTROLLER} (SASL/PLAIN, a user and password drawn here). The result holds both passwords:
     * it stays in memory, and {@link #format} deletes the file it writes of it.
     */
    static Properties singleNode(int clientPort, int controllerPort, Path dir, int partitions, KafkaCredentials credentials) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "CLIENT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "CLIENT://127.0.0.1:" + clientPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "CLIENT");
        p.put("listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        p.put("listener.name.client.sasl.enabled.mechanisms", KafkaCredentials.MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", KafkaCredentials.MECHANISM);
        // the broker's own login on the inter-broker listener; the listener checks clients against the SCRAM credential
        // that format() put into the metadata
        p.put("listener.name.client." + KafkaCredentials.MECHANISM.toLowerCase() + ".sasl.jaas.config", credentials.jaasConfig());
        // the controller's login: PLAIN with a user of its own, known to this JVM only (server side: user_<name>)
        String controllerPassword = KafkaCredentials.newPassword();
        p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.put("sasl.mechanism.controller.protocol", "PLAIN");
        p.put("listener.name.controller.plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"controller\" password=\"" + controllerPassword + "\" user_controller=\"" + controllerPassword + "\";");
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

    /**
     * Writes {@code p} as {@code dir/server.properties} (owner-only), formats the storage with the SCRAM credential of
     * {@code credentials} in the cluster metadata (hashed there: salted, 4096 iterations) and deletes the file again,
     * whether the format succeeded or not: the broker runs from {@code p} in memory, so no password stays on disk. On
     * failure {@code dir} is deleted.
     */
    static void format(Properties p, Path dir, String comment, KafkaCredentials credentials) {
        Path propsFile = dir.resolve("server.properties");
        ByteArrayOutputStream formatOut = new ByteArrayOutputStream();
        int rc;
        try {
            Files.createFile(propsFile, ownerOnly());
            try (var out = Files.newOutputStream(propsFile)) {
                p.store(out, comment);
            }
            try (PrintStream ps = new PrintStream(formatOut, true, StandardCharsets.UTF_8)) {
                rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", propsFile.toString(),
                    "--add-scram", credentials.scramArgument()}, ps);
            }
        } catch (Exception e) {
            deleteQuietly(dir);
            // the storage tool's message may quote its arguments: the exception is not chained, its text is redacted
            throw new IllegalStateException("kafka storage format failed: " + e.getClass().getSimpleName() + ": "
                    + credentials.redact(String.valueOf(e.getMessage())));
        } finally {
            try {
                Files.deleteIfExists(propsFile);
            } catch (IOException e) {
                // the directory is owner-only, and close() deletes it
            }
        }
        if (rc != 0) {
            deleteQuietly(dir);
            throw new IllegalStateException("kafka storage format failed (rc " + rc + "): "
                    + credentials.redact(formatOut.toString(StandardCharsets.UTF_8)));
        }
    }

    private static FileAttribute<?>[] ownerOnly() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
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

    /** The controller listener's port (SASL/PLAIN with the controller's own login; for tests that it refuses clients). */
    int controllerPort() {
        return controllerPort;
    }

    /** The broker's temp directory (log dirs; for tests that no password is on disk). */
    Path dir() {
        return dir;
    }

    /** The client listener's login ({@value KafkaCredentials#USER} and this broker's password). */
    public KafkaCredentials credentials() {
        return credentials;
    }

    /** {@code bootstrap.servers} and the SASL settings a raw client of this broker needs (a mutable copy). */
    public Map<String, Object> clientProperties() {
        return credentials.clientProperties(bootstrapServers());
    }

    /** The environment a service process needs to use this broker ({@link KafkaCredentials#serviceEnvironment}). */
    public Map<String, String> serviceEnvironment() {
        return credentials.serviceEnvironment(bootstrapServers());
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

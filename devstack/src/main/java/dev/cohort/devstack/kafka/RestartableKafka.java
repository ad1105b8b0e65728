package dev.cohort.devstack.kafka;

import dev.cohort.devstack.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.utils.Time;

/**
 * A single-node KRaft broker in this JVM that can be stopped and started again on the same log directory and the
 * same ports: the "broker down, broker back" fault of the reliability suite. Configured like {@link EmbeddedKafka}
 * (loopback only, one replica per internal topic, SASL on both listeners with the same kind of per-broker login,
 * {@link #credentials()}, kept across restarts).
 *
 * <p>Sequence: {@link #start} picks the ports, formats the storage once and starts the broker; {@link #stop} shuts it
 * down cleanly (its records and committed offsets stay in the log directory); {@link #restart} starts a new broker
 * process object on the same directory and ports and waits until it answers; {@link #close} stops it and deletes the
 * directory.
 */
public final class RestartableKafka implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final Properties props;
    private final KafkaCredentials credentials;
    private KafkaRaftServer server;
    private boolean closed;

    private RestartableKafka(Path dir, int port, Properties props, KafkaCredentials credentials) {
        this.dir = dir;
        this.port = port;
        this.props = props;
        this.credentials = credentials;
    }

    /** Starts a broker on free loopback ports with {@code topics} created ({@code partitions} each). */
    public static RestartableKafka start(Collection<String> topics, int partitions) {
        int clientPort = Ports.free();
        int controllerPort = Ports.free();
        Path dir;
        try {
            dir = Files.createTempDirectory("cohort-kafka-r-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        KafkaCredentials credentials = KafkaCredentials.generate();
        Properties p = EmbeddedKafka.singleNode(clientPort, controllerPort, dir, partitions, credentials);
        EmbeddedKafka.format(p, dir, "cohort restartable broker", credentials);
        RestartableKafka k = new RestartableKafka(dir, clientPort, p, credentials);
        try {
            k.restart();
            try (Admin admin = k.admin()) {
                EmbeddedKafka.createTopics(admin, topics, partitions);
            }
        } catch (RuntimeException e) {
            k.close();
            throw e;
        }
        return k;
    }

    /** {@code 127.0.0.1:<port>}; the same before and after a restart. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The client listener's login; the same before and after a restart. */
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

    public boolean isRunning() {
        synchronized (this) {
            return server != null;
        }
    }

    /** Shuts the broker down (a clean shutdown: clients see the connection refused until {@link #restart}). */
    public synchronized void stop() {
        if (server != null) {
            KafkaRaftServer s = server;
            server = null;
            s.shutdown();
            s.awaitShutdown();
        }
    }

    /** Starts the broker again on the same log directory and ports, and waits (up to 2 min) until it answers. */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (server != null) {
            return;
        }
        KafkaRaftServer s = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        s.startup();
        server = s;
        try (Admin admin = admin()) {
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            Exception last = null;
            while (System.nanoTime() < deadline) {
                try {
                    if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (Exception e) {
                    last = e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
            throw new IllegalStateException("restarted kafka broker not ready within 2 min", last);
        }
    }

    private Admin admin() {
        return Admin.create(clientProperties());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            stop();
        } finally {
            closed = true;
            EmbeddedKafka.deleteQuietly(dir);
        }
    }
}

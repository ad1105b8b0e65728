package dev.cohort.platform.kafka;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The broker part of every service's {@code /q/health/ready} ({@value #NAME}): up while the Kafka cluster answers a
 * metadata request ({@code describeCluster}) within {@code cohort.health.kafka-timeout}, down with the reason
 * otherwise. Each service sends on Kafka (events, messages, firings) and most read from it, so a replica that cannot
 * reach the broker does no useful work; its readiness follows the broker's, down while it is away and up again once it
 * answers, without a restart.
 *
 * <p>One {@link Admin} client per service, built from the {@code kafka.*} connection settings like the producers
 * ({@link KafkaRecordSender}) and created at start-up (not on the first probe), reused by every probe; it reconnects on
 * its own after a broker restart. A probe blocks at most the timeout.
 */
@Readiness
@ApplicationScoped
public class KafkaReadinessCheck implements HealthCheck {

    /** The check's name in {@code /q/health/ready}. */
    public static final String NAME = "Kafka broker connection";

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafkaConfig;

    /**
     * How long a probe waits for the cluster's answer. A broker answers a metadata request in milliseconds; 2 s leaves
     * room for a loaded machine and stays under the Kubernetes probes' 3 s timeout, so a broker that does not answer
     * shows as this check's DOWN rather than as a probe timeout.
     */
    @ConfigProperty(name = "cohort.health.kafka-timeout", defaultValue = "2s")
    Duration timeout;

    /**
     * {@code false} in a process that does not use Kafka at all (the tool runner's team sandbox): then no client is
     * made, and the check says so, up.
     */
    @ConfigProperty(name = "cohort.health.kafka-enabled", defaultValue = "true")
    boolean enabled = true;

    private volatile Admin admin;

    /** Creates the client at start-up rather than in the first probe. */
    void onStart(@Observes StartupEvent ev) {
        if (enabled) {
            admin();
        }
    }

    @Override
    public HealthCheckResponse call() {
        if (!enabled) {
            return HealthCheckResponse.named(NAME).up().withData("used", false).build();
        }
        long millis = Math.max(1, timeout.toMillis());
        try {
            Collection<Node> nodes = admin().describeCluster(new DescribeClusterOptions().timeoutMs((int) millis)).nodes()
                    .get(millis + 1000, TimeUnit.MILLISECONDS);
            return HealthCheckResponse.named(NAME).up().withData("brokers", nodes.size()).build();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return down(cause.getClass().getSimpleName() + ": " + cause.getMessage());
        } catch (TimeoutException e) {
            return down("no answer within " + millis + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return down("interrupted");
        } catch (RuntimeException e) {
            return down(e.toString());
        }
    }

    private static HealthCheckResponse down(String reason) {
        return HealthCheckResponse.named(NAME).down().withData("reason", reason).build();
    }

    private Admin admin() {
        Admin a = admin;
        if (a == null) {
            synchronized (this) {
                a = admin;
                if (a == null) {
                    a = Admin.create(adminConfig(kafkaConfig, ConfigProvider.getConfig()
                            .getOptionalValue("quarkus.application.name", String.class).orElse("service")));
                    admin = a;
                }
            }
        }
        return a;
    }

    /** The {@code kafka.*} settings an admin client knows (bootstrap servers, SASL, TLS), and a client id naming the service. */
    static Map<String, Object> adminConfig(Map<String, Object> kafka, String application) {
        Map<String, Object> config = KafkaClientProperties.admin(kafka);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, application + "-health");
        return config;
    }

    @PreDestroy
    void close() {
        Admin a = admin;
        if (a != null) {
            a.close(Duration.ofSeconds(2));
        }
    }
}

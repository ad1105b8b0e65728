package dev.cohort.platform.kafka;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.eclipse.microprofile.config.Config;

/**
 * The connection settings of a service's raw Kafka clients, from the same global {@code kafka.*} configuration that
 * Quarkus gives every SmallRye channel ({@code @Identifier("default-kafka-broker")}): bootstrap servers and whatever
 * security the broker wants ({@code kafka.security.protocol}, {@code kafka.sasl.*}, {@code kafka.ssl.*}; from the
 * environment {@code KAFKA_SECURITY_PROTOCOL}, {@code KAFKA_SASL_MECHANISM}, {@code KAFKA_SASL_JAAS_CONFIG} …). So a
 * raw producer, consumer or admin client logs in exactly as the channels do: with devstack's SASL/SCRAM login under
 * {@code cohort up} and in tests, with a production cluster's own settings elsewhere, and with nothing added when no
 * security is configured.
 *
 * <p>Each method keeps the settings the given kind of client knows (others would only be logged as unknown) plus every
 * {@code sasl.*}, {@code ssl.*} and {@code security.*} key (a login module's or TLS engine's own options), and returns
 * a mutable copy for the caller's own settings (serializers, client id, acks …).
 */
public final class KafkaClientProperties {

    private KafkaClientProperties() {
    }

    /** The settings of {@code kafka} that a producer knows, and the security settings. */
    public static Map<String, Object> producer(Map<String, ?> kafka) {
        return select(kafka, ProducerConfig.configNames());
    }

    /** The settings of {@code kafka} that a consumer knows, and the security settings. */
    public static Map<String, Object> consumer(Map<String, ?> kafka) {
        return select(kafka, ConsumerConfig.configNames());
    }

    /** The settings of {@code kafka} that an admin client knows, and the security settings. */
    public static Map<String, Object> admin(Map<String, ?> kafka) {
        return select(kafka, AdminClientConfig.configNames());
    }

    /**
     * The global {@code kafka.*} settings of {@code config} without their prefix, as Quarkus builds its
     * {@code default-kafka-broker} map (an environment variable {@code KAFKA_SASL_MECHANISM} is {@code sasl.mechanism}):
     * for code that has a {@link Config} but no CDI bean, such as a test's own client.
     */
    public static Map<String, Object> fromConfig(Config config) {
        Map<String, Object> out = new HashMap<>();
        for (String name : config.getPropertyNames()) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.length() <= "kafka.".length() || !(lower.startsWith("kafka.") || lower.startsWith("kafka_"))
                    || lower.startsWith("kafka.ui") || lower.startsWith("kafka_ui")) {
                continue;
            }
            config.getOptionalValue(name, String.class)
                    .ifPresent(v -> out.put(lower.substring("kafka.".length()).replace('_', '.'), v));
        }
        return out;
    }

    private static Map<String, Object> select(Map<String, ?> kafka, Set<String> known) {
        Map<String, Object> out = new HashMap<>();
        kafka.forEach((k, v) -> {
            if (known.contains(k) || k.startsWith("sasl.") || k.startsWith("ssl.") || k.startsWith("security.")) {
                out.put(k, v);
            }
        });
        return out;
    }
}

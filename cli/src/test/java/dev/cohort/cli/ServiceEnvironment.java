package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment {@code cohort up} gave a service process, read from {@code /proc/<pid>/environ}: how a test outside
 * {@code cohort up}'s JVM learns the per-start credentials of its database and broker, the way the service does.
 */
final class ServiceEnvironment {

    /** The variables that carry the broker's address and SASL login to a service (Quarkus' {@code kafka.*} keys). */
    static final List<String> KAFKA = List.of("KAFKA_BOOTSTRAP_SERVERS", "KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM",
            "KAFKA_SASL_JAAS_CONFIG");

    private ServiceEnvironment() {
    }

    /** Every variable of the process {@code pid}. */
    static Map<String, String> of(long pid) {
        byte[] environ;
        try {
            environ = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> env = new HashMap<>();
        for (String entry : new String(environ, StandardCharsets.UTF_8).split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }

    /**
     * The raw client properties of the broker that process {@code pid} uses: {@code bootstrap.servers} and the SASL
     * settings, as Quarkus derives them from the variables (a mutable map).
     */
    static Map<String, Object> kafkaClientProperties(long pid) {
        Map<String, String> env = of(pid);
        assertThat(env).as("the Kafka settings cohort up gives a service").containsKeys(KAFKA.toArray(String[]::new));
        Map<String, Object> out = new HashMap<>();
        for (String name : KAFKA) {
            out.put(name.substring("KAFKA_".length()).toLowerCase().replace('_', '.'), env.get(name));
        }
        return out;
    }
}

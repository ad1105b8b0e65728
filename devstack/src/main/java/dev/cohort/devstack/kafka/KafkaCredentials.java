package dev.cohort.devstack.kafka;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The SASL/SCRAM-SHA-256 login of a devstack broker's client listener: user {@value #USER} with a password drawn per
 * broker, and the settings a client (raw properties, a Quarkus service's {@code kafka.*} keys or its environment) needs
 * to log in with it. {@link #toString()} never shows the password.
 */
public final class KafkaCredentials {

    /** The one user of the client listener; every service and test client logs in as it. */
    public static final String USER = "cohort";
    /** The client listener's mechanism: salted, iterated hashes in the cluster metadata, no password on the wire. */
    public static final String MECHANISM = "SCRAM-SHA-256";
    /** SASL without TLS: the broker listens on loopback only, so there is no network path to encrypt. */
    public static final String SECURITY_PROTOCOL = "SASL_PLAINTEXT";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String username;
    private final String password;

    private KafkaCredentials(String username, String password) {
        this.username = username;
        this.password = password;
    }

    /** User {@value #USER} with a fresh password ({@link #newPassword()}). */
    public static KafkaCredentials generate() {
        return of(USER, newPassword());
    }

    /**
     * A given login, for a process that must know the password before the broker exists, or for a test that tries a
     * wrong one. The name and password are put in a JAAS string and the storage tool's SCRAM argument, so they are
     * limited to letters, digits, {@code -} and {@code _}.
     */
    public static KafkaCredentials of(String username, String password) {
        if (!safe(username) || !safe(password)) {
            throw new IllegalArgumentException("a Kafka user name and password are letters, digits, '-' and '_' only");
        }
        return new KafkaCredentials(username, password);
    }

    /** 32 bytes of {@link SecureRandom} as 64 hex digits. */
    public static String newPassword() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    /** The client-side JAAS line of this login ({@code sasl.jaas.config}). */
    public String jaasConfig() {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + username + "\" password=\""
                + password + "\";";
    }

    /** {@code bootstrap.servers} and the SASL settings, for a raw producer, consumer or admin client (a mutable copy). */
    public Map<String, Object> clientProperties(String bootstrapServers) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bootstrap.servers", bootstrapServers);
        m.put("security.protocol", SECURITY_PROTOCOL);
        m.put("sasl.mechanism", MECHANISM);
        m.put("sasl.jaas.config", jaasConfig());
        return m;
    }

    /** The same as Quarkus configuration: the global {@code kafka.*} keys every channel and raw client of a service reads. */
    public Map<String, String> quarkusConfig(String bootstrapServers) {
        Map<String, String> m = new LinkedHashMap<>();
        clientProperties(bootstrapServers).forEach((k, v) -> m.put("kafka." + k, v.toString()));
        return m;
    }

    /**
     * The same as a service process' environment ({@code KAFKA_BOOTSTRAP_SERVERS}, {@code KAFKA_SECURITY_PROTOCOL},
     * {@code KAFKA_SASL_MECHANISM}, {@code KAFKA_SASL_JAAS_CONFIG}), which Quarkus maps onto those {@code kafka.*} keys.
     */
    public Map<String, String> serviceEnvironment(String bootstrapServers) {
        Map<String, String> m = new LinkedHashMap<>();
        clientProperties(bootstrapServers).forEach((k, v) -> m.put("KAFKA_" + k.toUpperCase().replace('.', '_'), v.toString()));
        return m;
    }

    /** The storage tool's argument that puts this login into the cluster metadata at format time. */
    String scramArgument() {
        return MECHANISM + "=[name=" + username + ",password=" + password + "]";
    }

    /** {@code text} with the password replaced, for error messages that may quote a tool's output. */
    String redact(String text) {
        return text == null ? null : text.replace(password, "<redacted>");
    }

    private static boolean safe(String s) {
        return s != null && !s.isEmpty() && s.chars().allMatch(c -> Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '_');
    }

    @Override
    public String toString() {
        return "KafkaCredentials[" + username + ", " + MECHANISM + ", password <redacted>]";
    }
}

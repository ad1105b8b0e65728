package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The manifests against what the services really read: every env variable a Cohort container gets must be read by
 * that service (a typo such as {@code COHORT_DB_URI} is otherwise silently ignored and the default used), and every
 * service that talks to Kafka is admitted by the Kafka listener it points at.
 */
final class ServiceConfig {

    /** Variables the JVM base image (ubi9 openjdk run-java.sh) reads, not the application. */
    static final Set<String> IMAGE_VARS = Set.of("JAVA_OPTS", "JAVA_OPTS_APPEND", "JAVA_APP_JAR", "JAVA_MAX_MEM_RATIO",
            "JAVA_INITIAL_MEM_RATIO", "JAVA_DEBUG", "JAVA_CLASSPATH", "JAVA_MAIN_CLASS", "GC_CONTAINER_OPTIONS", "JAVA_COMPACT_OBJECT_HEADERS",
            "TZ", "HOME");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_]+)");
    private static final Pattern MAPPING = Pattern.compile("@ConfigMapping\\(prefix\\s*=\\s*\"([^\"]+)\"\\)");
    private static final Pattern METHOD = Pattern.compile("(?m)^\\s+(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*[\\w<>, ?.\\[\\]]+\\s+(\\w+)\\(\\);");

    private ServiceConfig() {
    }

    /** The env names a service reads: placeholders, the env form of its properties and of its @ConfigMapping methods. */
    static Set<String> envNamesRead(String app, Properties props) {
        Set<String> names = new HashSet<>(IMAGE_VARS);
        for (String k : props.stringPropertyNames()) {
            names.add(envForm(k));
            Matcher m = PLACEHOLDER.matcher(props.getProperty(k));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        for (String module : List.of(app, "agent-host")) {
            Path src = Manifest.repo().resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String text = Files.readString(f);
                    Matcher pm = MAPPING.matcher(text);
                    if (!pm.find()) {
                        continue;
                    }
                    Matcher mm = METHOD.matcher(text);
                    while (mm.find()) {
                        names.add(envForm(pm.group(1) + "." + kebab(mm.group(1))));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return names;
    }

    /** MicroProfile Config's env form of a property name: upper case, every non-alphanumeric an underscore. */
    static String envForm(String property) {
        return property.replace("\"", "").toUpperCase().replaceAll("[^A-Z0-9]", "_");
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    /** Every env name of a container of a Cohort service (env and the ConfigMaps of envFrom) is read by the service. */
    static List<String> envVarsAreReadByTheService(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            String app = Manifest.podLabels(w).get("app.kubernetes.io/name");
            Optional<Properties> props = app == null ? Optional.empty() : CrossReferences.applicationProperties(app);
            if (props.isEmpty()) {
                continue;
            }
            Set<String> read = envNamesRead(app, props.get());
            for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                Map<String, String> given = new LinkedHashMap<>();
                for (JsonNode ef : c.path("envFrom")) {
                    String cm = ef.path("configMapRef").path("name").asText();
                    m.find("ConfigMap", cm).ifPresent(o -> o.path("data").fieldNames().forEachRemaining(k -> given.put(k, "ConfigMap/" + cm)));
                }
                c.path("env").forEach(e -> given.put(e.path("name").asText(), "env"));
                for (var e : given.entrySet()) {
                    String n = e.getKey();
                    if (!read.contains(n) && !n.startsWith("QUARKUS_") && !n.startsWith("MP_MESSAGING_")) {
                        out.add(Manifest.id(w) + ": " + n + " (" + e.getValue() + ") is read by nothing in " + app
                                + ": no ${" + n + "} in its application.properties, no property or @ConfigMapping it maps to");
                    }
                }
            }
        }
        return out;
    }

    /**
     * Services that set KAFKA_BOOTSTRAP_SERVERS point at {@code <kafka>-kafka-bootstrap:<port>} of a listener of a Kafka
     * of the build, and when that listener restricts its clients ({@code networkPolicyPeers}) their pods match a peer.
     */
    static List<String> kafkaClientsReachAListener(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            String bootstrap = CrossReferences.containerEnv(m, w).get("KAFKA_BOOTSTRAP_SERVERS");
            if (bootstrap == null) {
                continue;
            }
            for (String server : bootstrap.split(",")) {
                String host = server.contains(":") ? server.substring(0, server.lastIndexOf(':')) : server;
                int port = server.contains(":") ? Integer.parseInt(server.substring(server.lastIndexOf(':') + 1).trim()) : 9092;
                Optional<JsonNode> kafka = m.ofKind("Kafka").stream().map(k -> (JsonNode) k)
                        .filter(k -> host.trim().equals(Manifest.nameOf(k) + "-kafka-bootstrap") || host.trim().startsWith(Manifest.nameOf(k) + "-kafka-bootstrap."))
                        .findFirst();
                if (kafka.isEmpty()) {
                    out.add(Manifest.id(w) + ": KAFKA_BOOTSTRAP_SERVERS " + server + " is not the bootstrap Service of a Kafka of the build");
                    continue;
                }
                Optional<JsonNode> listener = Stream.of(kafka.get().path("spec").path("kafka").path("listeners")).flatMap(l -> {
                    List<JsonNode> all = new ArrayList<>();
                    l.forEach(all::add);
                    return all.stream();
                }).filter(l -> l.path("port").asInt() == port).findFirst();
                if (listener.isEmpty()) {
                    out.add(Manifest.id(w) + ": KAFKA_BOOTSTRAP_SERVERS port " + port + " is no listener of " + Manifest.id(kafka.get()));
                    continue;
                }
                JsonNode peers = listener.get().path("networkPolicyPeers");
                if (peers.isArray() && !peers.isEmpty()) {
                    boolean admitted = false;
                    for (JsonNode p : peers) {
                        admitted |= p.has("podSelector") && !p.has("namespaceSelector") && Manifest.selects(p.path("podSelector"), Manifest.podLabels(w));
                    }
                    if (!admitted) {
                        out.add(Manifest.id(w) + ": its pods " + Manifest.podLabels(w) + " match none of the networkPolicyPeers of listener "
                                + listener.get().path("name").asText() + " (Strimzi's NetworkPolicy would refuse them)");
                    }
                }
            }
        }
        return out;
    }
}

package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Reader;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Stream;
import java.util.TreeSet;

/**
 * References between objects, and between the manifests and the services' own configuration
 * ({@code <service>/src/main/resources/application.properties}), that no schema can see.
 */
final class CrossReferences {

    /** KEDA's default {@code maxReplicaCount} when a ScaledObject does not set one (KEDA 2.20 docs). */
    static final int KEDA_DEFAULT_MAX_REPLICAS = 100;
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)(?::([^}]*))?}");

    private CrossReferences() {
    }

    /** The kafka triggers of every ScaledObject: (ScaledObject, trigger metadata). */
    static List<Map.Entry<JsonNode, JsonNode>> kafkaTriggers(Manifest m) {
        List<Map.Entry<JsonNode, JsonNode>> out = new ArrayList<>();
        for (JsonNode so : m.ofKind("ScaledObject")) {
            for (JsonNode t : so.path("spec").path("triggers")) {
                if (t.path("type").asText().equals("kafka") || t.path("type").asText().equals("apache-kafka")) {
                    out.add(Map.entry(so, t.path("metadata")));
                }
            }
        }
        return out;
    }

    static List<String> scaledObjectTargetsAWorkload(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode so : m.ofKind("ScaledObject")) {
            JsonNode ref = so.path("spec").path("scaleTargetRef");
            String kind = ref.path("kind").asText("Deployment");
            String name = ref.path("name").asText();
            if (m.find(kind, name).isEmpty()) {
                out.add(Manifest.id(so) + ": scaleTargetRef " + kind + "/" + name + " is not in the build");
            }
            if (m.ofKind("HorizontalPodAutoscaler").stream().anyMatch(h -> h.path("spec").path("scaleTargetRef").path("name").asText().equals(name))) {
                out.add(Manifest.id(so) + ": " + kind + "/" + name + " also has an HPA of its own; KEDA must own the only one");
            }
        }
        return out;
    }

    /** The KafkaTopic that is the Kafka topic {@code topic} (spec.topicName, else metadata.name). */
    static Optional<JsonNode> kafkaTopic(Manifest m, String topic) {
        return m.ofKind("KafkaTopic").stream().filter(t -> t.path("spec").path("topicName").asText(Manifest.nameOf(t)).equals(topic))
                .map(t -> (JsonNode) t).findFirst();
    }

    static List<String> scaledObjectTopicFitsItsReplicas(Manifest m) {
        List<String> out = new ArrayList<>();
        for (var e : kafkaTriggers(m)) {
            JsonNode so = e.getKey();
            String topic = e.getValue().path("topic").asText();
            int max = so.path("spec").path("maxReplicaCount").asInt(KEDA_DEFAULT_MAX_REPLICAS);
            Optional<JsonNode> kt = kafkaTopic(m, topic);
            if (kt.isEmpty()) {
                out.add(Manifest.id(so) + ": trigger topic \"" + topic + "\" is not a KafkaTopic of the build");
                continue;
            }
            int partitions = kt.get().path("spec").path("partitions").asInt(0);
            if (partitions < max) {
                out.add(Manifest.id(so) + ": maxReplicaCount " + max + " > " + partitions + " partitions of " + topic
                        + " (replicas beyond the partition count would sit idle)");
            }
            String cluster = kt.get().path("metadata").path("labels").path("strimzi.io/cluster").asText();
            String bootstrap = e.getValue().path("bootstrapServers").asText();
            if (!bootstrap.startsWith(cluster + "-kafka-bootstrap")) {
                out.add(Manifest.id(so) + ": bootstrapServers \"" + bootstrap + "\" is not the bootstrap Service of Kafka " + cluster
                        + " (" + cluster + "-kafka-bootstrap:<port>)");
            }
        }
        return out;
    }

    /** Every KafkaTopic and KafkaNodePool names, by its strimzi.io/cluster label, a Kafka of the build. */
    static List<String> strimziClusterLabels(Manifest m) {
        List<String> out = new ArrayList<>();
        for (String kind : List.of("KafkaTopic", "KafkaNodePool", "KafkaUser")) {
            for (JsonNode o : m.ofKind(kind)) {
                String c = o.path("metadata").path("labels").path("strimzi.io/cluster").asText();
                if (m.find("Kafka", c).isEmpty()) {
                    out.add(Manifest.id(o) + ": label strimzi.io/cluster=\"" + c + "\" names no Kafka of the build (the operator ignores it)");
                }
            }
        }
        return out;
    }

    /** The consumer group of each kafka trigger is the one its target service really consumes the topic with. */
    static List<String> consumerGroupMatchesTheService(Manifest m) {
        List<String> out = new ArrayList<>();
        for (var e : kafkaTriggers(m)) {
            JsonNode so = e.getKey();
            String target = so.path("spec").path("scaleTargetRef").path("name").asText();
            Optional<? extends JsonNode> w = m.find(so.path("spec").path("scaleTargetRef").path("kind").asText("Deployment"), target);
            if (w.isEmpty()) {
                continue; // scaledObjectTargetsAWorkload reports it
            }
            String app = Manifest.podLabels(w.get()).getOrDefault("app.kubernetes.io/name", target);
            Optional<Properties> props = applicationProperties(app);
            if (props.isEmpty()) {
                out.add(Manifest.id(so) + ": no " + app + "/src/main/resources/application.properties to read the consumer group from");
                continue;
            }
            String topic = e.getValue().path("topic").asText();
            Map<String, String> env = containerEnv(m, w.get());
            Optional<String> group = consumerGroup(props.get(), topic, env);
            String configured = e.getValue().path("consumerGroup").asText();
            if (group.isEmpty()) {
                out.add(Manifest.id(so) + ": " + app + " has no incoming channel on topic " + topic);
            } else if (!group.get().equals(configured)) {
                out.add(Manifest.id(so) + ": consumerGroup \"" + configured + "\" is not " + app + "'s group \"" + group.get() + "\" for " + topic
                        + " (KEDA would read the lag of a group nobody consumes with)");
            }
        }
        return out;
    }

    /**
     * The group id the consumer of {@code topic} uses (env overrides, then properties, then the app name): a SmallRye
     * Kafka incoming channel ({@code mp.messaging.incoming.<channel>.topic}), or a plain consumer configured the same way
     * under a prefix of its own ({@code <prefix>.topic} with {@code <prefix>.group.id}, as teammate-service's
     * {@code cohort.teammate-inbox.*}).
     */
    static Optional<String> consumerGroup(Properties p, String topic, Map<String, String> env) {
        for (String key : p.stringPropertyNames()) {
            Matcher mt = Pattern.compile("(mp\\.messaging\\.incoming\\.[^.]+|[a-z0-9.-]+)\\.topic").matcher(key);
            if (!mt.matches() || !resolve(p.getProperty(key), env).equals(topic)) {
                continue;
            }
            String prefix = mt.group(1);
            boolean channel = prefix.startsWith("mp.messaging.incoming.");
            if (!channel && p.getProperty(prefix + ".group.id") == null) {
                continue; // some other setting that names the topic
            }
            String envKey = prefix.toUpperCase().replaceAll("[^A-Z0-9]", "_") + "_GROUP_ID";
            if (env.containsKey(envKey)) {
                return Optional.of(env.get(envKey));
            }
            String g = p.getProperty(prefix + ".group.id",
                    p.getProperty("kafka.group.id", p.getProperty("quarkus.application.name")));
            return Optional.ofNullable(g).map(x -> resolve(x, env));
        }
        return Optional.empty();
    }

    /** {@code ${VAR:default}} with VAR from the container's env. */
    static String resolve(String value, Map<String, String> env) {
        Matcher mt = PLACEHOLDER.matcher(value);
        StringBuilder b = new StringBuilder();
        while (mt.find()) {
            String v = env.getOrDefault(mt.group(1), mt.group(2) == null ? "" : mt.group(2));
            mt.appendReplacement(b, Matcher.quoteReplacement(v));
        }
        mt.appendTail(b);
        return b.toString();
    }

    /** The service module's application.properties. */
    static Optional<Properties> applicationProperties(String app) {
        Path f = Manifest.repo().resolve(app).resolve("src/main/resources/application.properties");
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(f)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.of(p);
    }

    /** Literal env of a workload's first container: ConfigMaps of envFrom and configMapKeyRef resolved, then env values. */
    static Map<String, String> containerEnv(Manifest m, JsonNode w) {
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode c = Manifest.podTemplate(w).orElseThrow().path("spec").path("containers").path(0);
        for (JsonNode ef : c.path("envFrom")) {
            m.find("ConfigMap", ef.path("configMapRef").path("name").asText()).ifPresent(cm -> env.putAll(Manifest.strings(cm.path("data"))));
        }
        for (JsonNode e : c.path("env")) {
            if (e.has("value")) {
                env.put(e.path("name").asText(), e.path("value").asText());
            } else if (e.path("valueFrom").has("configMapKeyRef")) {
                JsonNode ref = e.path("valueFrom").path("configMapKeyRef");
                m.find("ConfigMap", ref.path("name").asText()).map(cm -> cm.path("data").path(ref.path("key").asText()))
                        .filter(JsonNode::isTextual).ifPresent(v -> env.put(e.path("name").asText(), v.asText()));
            }
        }
        return env;
    }

    /** A shared workspace: a PVC mounted by a workload that can have more than one pod must be ReadWriteMany. */
    static List<String> pvcAccessModeFitsReplicas(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            int maxPods = Manifest.replicas(w);
            for (JsonNode so : m.ofKind("ScaledObject")) {
                if (so.path("spec").path("scaleTargetRef").path("name").asText().equals(Manifest.nameOf(w))) {
                    maxPods = Math.max(maxPods, so.path("spec").path("maxReplicaCount").asInt(KEDA_DEFAULT_MAX_REPLICAS));
                }
            }
            for (JsonNode h : m.ofKind("HorizontalPodAutoscaler")) {
                if (h.path("spec").path("scaleTargetRef").path("name").asText().equals(Manifest.nameOf(w))) {
                    maxPods = Math.max(maxPods, h.path("spec").path("maxReplicas").asInt(1));
                }
            }
            for (JsonNode v : Manifest.podTemplate(w).orElseThrow().path("spec").path("volumes")) {
                if (!v.has("persistentVolumeClaim")) {
                    continue;
                }
                String claim = v.path("persistentVolumeClaim").path("claimName").asText();
                Optional<ObjectNode> pvc = m.find("PersistentVolumeClaim", claim);
                if (pvc.isEmpty()) {
                    out.add(Manifest.id(w) + ": volume " + v.path("name").asText() + " claims PersistentVolumeClaim/" + claim + ", not in the build");
                    continue;
                }
                Set<String> modes = new HashSet<>();
                pvc.get().path("spec").path("accessModes").forEach(x -> modes.add(x.asText()));
                if (maxPods > 1 && !modes.contains("ReadWriteMany")) {
                    out.add(Manifest.id(w) + ": up to " + maxPods + " pods share PersistentVolumeClaim/" + claim + " but its accessModes " + modes
                            + " lack ReadWriteMany (pods on other nodes could not mount it)");
                }
                boolean rolling = !w.path("spec").path("strategy").path("type").asText("RollingUpdate").equals("Recreate");
                if (w.path("kind").asText().equals("Deployment") && !modes.contains("ReadWriteMany") && !modes.contains("ReadOnlyMany") && rolling) {
                    out.add(Manifest.id(w) + ": a RollingUpdate starts the new pod before the old one lets go of ReadWriteOnce"
                            + " PersistentVolumeClaim/" + claim + " (on another node the rollout hangs): use strategy Recreate");
                }
            }
        }
        return out;
    }

    /** The most and fewest pods a workload runs: spec.replicas, or the autoscaler's bounds. */
    static int[] podRange(Manifest m, JsonNode w) {
        int min = Manifest.replicas(w);
        int max = min;
        for (JsonNode so : m.ofKind("ScaledObject")) {
            if (so.path("spec").path("scaleTargetRef").path("name").asText().equals(Manifest.nameOf(w))) {
                min = so.path("spec").path("minReplicaCount").asInt(0);
                max = so.path("spec").path("maxReplicaCount").asInt(KEDA_DEFAULT_MAX_REPLICAS);
            }
        }
        return new int[] {min, max};
    }

    /** A workload a ScaledObject or HPA scales leaves spec.replicas unset, or every kubectl apply resets the scale. */
    static List<String> scaledWorkloadsLeaveReplicasToTheAutoscaler(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            boolean scaled = Stream.concat(m.ofKind("ScaledObject").stream(), m.ofKind("HorizontalPodAutoscaler").stream())
                    .anyMatch(s -> s.path("spec").path("scaleTargetRef").path("name").asText().equals(Manifest.nameOf(w)));
            if (scaled && w.path("spec").has("replicas")) {
                out.add(Manifest.id(w) + ": sets spec.replicas " + w.path("spec").path("replicas") + " but an autoscaler owns its scale"
                        + " (each kubectl apply would reset it and move agents between replicas)");
            }
        }
        return out;
    }

    /** A workload that can run more than one pod gives each its own COHORT_INSTANCE_ID (a fieldRef), never one literal. */
    static List<String> instanceIdsAreUniquePerPod(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            if (podRange(m, w)[1] <= 1) {
                continue;
            }
            JsonNode c = Manifest.podTemplate(w).orElseThrow().path("spec").path("containers").path(0);
            boolean fromField = false;
            for (JsonNode e : c.path("env")) {
                fromField |= e.path("name").asText().equals("COHORT_INSTANCE_ID") && e.path("valueFrom").has("fieldRef");
            }
            String literal = containerEnv(m, w).get("COHORT_INSTANCE_ID");
            if (!fromField && literal != null) {
                out.add(Manifest.id(w) + ": up to " + podRange(m, w)[1] + " pods share COHORT_INSTANCE_ID=\"" + literal + "\" (use a fieldRef to"
                        + " metadata.name: each replica claims and recovers its own work by it)");
            }
        }
        return out;
    }

    /** A PodDisruptionBudget lets at least one pod be evicted at the fewest replicas, or a node drain never ends. */
    static List<String> disruptionBudgetsAllowEviction(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode pdb : m.ofKind("PodDisruptionBudget")) {
            for (JsonNode w : m.workloads()) {
                if (!Manifest.selects(pdb.path("spec").path("selector"), Manifest.podLabels(w))) {
                    continue;
                }
                int fewest = Math.max(1, podRange(m, w)[0]);
                JsonNode minAvailable = pdb.path("spec").path("minAvailable");
                JsonNode maxUnavailable = pdb.path("spec").path("maxUnavailable");
                boolean blocks = (minAvailable.isInt() && minAvailable.asInt() >= fewest) || minAvailable.asText().equals("100%")
                        || (maxUnavailable.isInt() && maxUnavailable.asInt() == 0) || maxUnavailable.asText().equals("0%");
                if (blocks) {
                    out.add(Manifest.id(pdb) + ": with " + fewest + " pod(s) of " + Manifest.id(w) + " it allows no eviction"
                            + " (minAvailable " + minAvailable + ", maxUnavailable " + maxUnavailable + "): kubectl drain would never finish");
                }
            }
        }
        return out;
    }

    /** Every secretKeyRef names a Secret the operator creates (README) or CloudNativePG generates, and a key it has. */
    static List<String> secretRefsResolve(Manifest m) {
        Map<String, Set<String>> provided = new LinkedHashMap<>(m.handMadeSecrets());
        for (JsonNode c : m.ofKind("Cluster")) {
            if (c.path("apiVersion").asText().startsWith("postgresql.cnpg.io/")) {
                provided.put(Manifest.nameOf(c) + "-app", Manifest.CNPG_APP_SECRET_KEYS);
            }
        }
        for (JsonNode s : m.ofKind("Secret")) {
            Set<String> keys = new HashSet<>();
            s.path("data").fieldNames().forEachRemaining(keys::add);
            s.path("stringData").fieldNames().forEachRemaining(keys::add);
            provided.put(Manifest.nameOf(s), keys);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                for (JsonNode e : c.path("env")) {
                    JsonNode ref = e.path("valueFrom").path("secretKeyRef");
                    if (ref.isMissingNode()) {
                        continue;
                    }
                    String name = ref.path("name").asText();
                    String key = ref.path("key").asText();
                    boolean optional = ref.path("optional").asBoolean(false);
                    String where = Manifest.id(w) + " container " + c.path("name").asText() + " env " + e.path("name").asText();
                    if (!provided.containsKey(name)) {
                        out.add(where + ": Secret " + name + " is neither created by the README's kubectl create secret nor generated by"
                                + " an operator (known: " + provided.keySet() + ")" + (optional ? " [optional]" : ""));
                    } else if (!provided.get(name).contains(key)) {
                        out.add(where + ": Secret " + name + " has no key \"" + key + "\" (keys: " + provided.get(name) + ")");
                    }
                }
            }
        }
        return out;
    }

    /** Each Service selects pods of the build, and its targetPort is a port of their container. */
    static List<String> servicesSelectPods(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode s : m.ofKind("Service")) {
            Map<String, String> sel = Manifest.strings(s.path("spec").path("selector"));
            if (sel.isEmpty()) {
                continue;
            }
            List<ObjectNode> pods = m.workloads().stream()
                    .filter(w -> sel.entrySet().stream().allMatch(e -> e.getValue().equals(Manifest.podLabels(w).get(e.getKey())))).toList();
            if (pods.isEmpty()) {
                out.add(Manifest.id(s) + ": selector " + sel + " matches no pods of the build");
                continue;
            }
            for (JsonNode p : s.path("spec").path("ports")) {
                JsonNode target = p.has("targetPort") ? p.path("targetPort") : p.path("port");
                for (JsonNode w : pods) {
                    boolean found = false;
                    for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                        for (JsonNode cp : c.path("ports")) {
                            found |= target.isTextual() ? cp.path("name").asText().equals(target.asText())
                                    : cp.path("containerPort").asInt() == target.asInt();
                        }
                    }
                    if (!found) {
                        out.add(Manifest.id(s) + ": targetPort " + target + " is not a port of " + Manifest.id(w));
                    }
                }
            }
        }
        return out;
    }

    /** The port a service listens on (its quarkus.http.port, with the container's env applied), if it is one of ours. */
    static Optional<Integer> listenPort(Manifest m, JsonNode w) {
        String app = Manifest.podLabels(w).get("app.kubernetes.io/name");
        if (app == null) {
            return Optional.empty();
        }
        return applicationProperties(app).map(p -> {
            Map<String, String> env = containerEnv(m, w);
            String v = env.getOrDefault("QUARKUS_HTTP_PORT", resolve(property(p, "quarkus.http.port", "8080"), env));
            return Integer.parseInt(v.trim());
        });
    }

    /** Quarkus' default {@code quarkus.management.port}. */
    static final int QUARKUS_DEFAULT_MANAGEMENT_PORT = 9000;

    /** A property as the image's prod profile reads it: {@code %prod.<key>} over {@code <key>}, else {@code def}. */
    static String property(Properties p, String key, String def) {
        return p.getProperty("%prod." + key, p.getProperty(key, def));
    }

    /**
     * Whether the service builds with Quarkus' management interface ({@code quarkus.management.enabled}): then
     * {@code /q/health} and {@code /q/metrics} are served on the management port only, never on the http port. The
     * property is fixed at build time, so only application.properties counts, not the pod's env.
     */
    static boolean managementEnabled(Properties p) {
        return property(p, "quarkus.management.enabled", "false").strip().equals("true");
    }

    /** The port of the management interface: {@code QUARKUS_MANAGEMENT_PORT} of the env, else the property, else 9000. */
    static int managementPort(Properties p, Map<String, String> env) {
        String v = env.getOrDefault("QUARKUS_MANAGEMENT_PORT",
                resolve(property(p, "quarkus.management.port", String.valueOf(QUARKUS_DEFAULT_MANAGEMENT_PORT)), env));
        return Integer.parseInt(v.strip());
    }

    /** The management port of a workload's service, if it is one of ours and builds with the management interface. */
    static Optional<Integer> managementPort(Manifest m, JsonNode w) {
        String app = Manifest.podLabels(w).get("app.kubernetes.io/name");
        if (app == null) {
            return Optional.empty();
        }
        return applicationProperties(app).filter(CrossReferences::managementEnabled).map(p -> managementPort(p, containerEnv(m, w)));
    }

    /**
     * The ports of the pod are the ports the service really listens on: a container port is its
     * {@code quarkus.http.port} (the pod's env applied: {@code ${COHORT_TEAMMATE_PORT:8081}} …); the probes and a
     * {@code prometheus.io/port} annotation hit the port that serves {@code /q} — the management port
     * ({@code quarkus.management.port}, default 9000, {@code QUARKUS_MANAGEMENT_PORT}) when the service builds with
     * the management interface, else the http port — and a container port named {@code management} is that port;
     * {@code prometheus.io/path} is {@code /q/metrics}.
     */
    static List<String> portsMatchTheService(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            Optional<Integer> port = listenPort(m, w);
            if (port.isEmpty()) {
                continue;
            }
            Optional<Integer> management = managementPort(m, w);
            int q = management.orElse(port.get());
            String qPort = management.isPresent() ? q + ", its management port" : q + ", its http port";
            JsonNode c = Manifest.podTemplate(w).orElseThrow().path("spec").path("containers").path(0);
            Map<String, Integer> named = new LinkedHashMap<>();
            Set<Integer> numbers = new TreeSet<>();
            c.path("ports").forEach(p -> {
                numbers.add(p.path("containerPort").asInt());
                if (p.has("name")) {
                    named.put(p.path("name").asText(), p.path("containerPort").asInt());
                }
            });
            if (!numbers.contains(port.get())) {
                out.add(Manifest.id(w) + ": the service listens on " + port.get() + " (quarkus.http.port) but the container ports are " + numbers);
            }
            if (management.isPresent() && named.containsKey("management") && named.get("management").intValue() != q) {
                out.add(Manifest.id(w) + ": container port \"management\" is " + named.get("management") + " but the service's management"
                        + " interface listens on " + q + " (quarkus.management.port)");
            }
            JsonNode annotations = Manifest.podTemplate(w).orElseThrow().path("metadata").path("annotations");
            if (annotations.has("prometheus.io/port") && !annotations.path("prometheus.io/port").asText().equals(String.valueOf(q))) {
                out.add(Manifest.id(w) + ": annotation prometheus.io/port " + annotations.path("prometheus.io/port").asText()
                        + " is not the port the service serves /q/metrics on (" + qPort + "): Prometheus would scrape nothing");
            }
            if (annotations.has("prometheus.io/path") && !annotations.path("prometheus.io/path").asText().equals("/q/metrics")) {
                out.add(Manifest.id(w) + ": annotation prometheus.io/path " + annotations.path("prometheus.io/path").asText()
                        + " is not Quarkus' /q/metrics");
            }
            for (String which : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                JsonNode p = c.path(which).path("httpGet").path("port");
                if (p.isMissingNode()) {
                    continue;
                }
                Integer n = p.isTextual() ? named.get(p.asText()) : Integer.valueOf(p.asInt());
                if (n == null || n != q) {
                    out.add(Manifest.id(w) + ": " + which + " hits port " + p + (p.isTextual() ? " (" + n + ")" : "")
                            + " but the service serves /q/health on " + qPort);
                }
            }
        }
        return out;
    }
}

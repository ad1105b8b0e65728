package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The shape of each overlay (replicas, topics, scaling, PostgreSQL, backups), as pure functions of its build. */
final class OverlayShape {

    /** The five topics of ARCHITECTURE.md §4. */
    static final List<String> TOPICS = List.of("cohort.prompts", "cohort.lead.inbox", "cohort.teammate.inbox", "cohort.events", "cohort.dlq");
    /** The four services. */
    static final List<String> SERVICES = List.of("lead-service", "teammate-service", "scheduler-service", "tool-runner-service");
    /** Scale-down stabilisation at least this long, so agents are not moved between replicas on every lull. */
    static final int MIN_SCALE_DOWN_STABILISATION_SECONDS = 300;

    private OverlayShape() {
    }

    /** Both overlays: the services with their objects, the five topics, Kafka + node pools, CNPG, consistent partitions. */
    static List<String> common(Manifest m) {
        List<String> out = new ArrayList<>();
        for (String s : SERVICES) {
            for (String kind : List.of("Deployment", "Service", "ServiceAccount", "ConfigMap", "PodDisruptionBudget")) {
                if (m.find(kind, s).isEmpty()) {
                    out.add(s + ": no " + kind + "/" + s);
                }
            }
        }
        for (String t : TOPICS) {
            Optional<JsonNode> kt = CrossReferences.kafkaTopic(m, t);
            if (kt.isEmpty()) {
                out.add("topic " + t + " is not a KafkaTopic");
            } else if (!kt.get().path("apiVersion").asText().equals("kafka.strimzi.io/v1")) {
                out.add("KafkaTopic " + t + " is " + kt.get().path("apiVersion").asText() + ", Strimzi 1.2 serves only kafka.strimzi.io/v1");
            }
        }
        if (m.ofKind("Kafka").isEmpty() || m.ofKind("KafkaNodePool").isEmpty()) {
            out.add("no Strimzi Kafka with KafkaNodePools");
        }
        if (m.ofKind("Cluster").stream().noneMatch(c -> c.path("apiVersion").asText().equals("postgresql.cnpg.io/v1"))) {
            out.add("no CloudNativePG Cluster (postgresql.cnpg.io/v1)");
        }
        // lead-service reads both topics in one group with the range assignor: partition N of each lands on one replica
        Optional<JsonNode> prompts = CrossReferences.kafkaTopic(m, "cohort.prompts");
        Optional<JsonNode> leadInbox = CrossReferences.kafkaTopic(m, "cohort.lead.inbox");
        if (prompts.isPresent() && leadInbox.isPresent()
                && prompts.get().path("spec").path("partitions").asInt() != leadInbox.get().path("spec").path("partitions").asInt()) {
            out.add("cohort.prompts has " + prompts.get().path("spec").path("partitions").asInt() + " partitions, cohort.lead.inbox "
                    + leadInbox.get().path("spec").path("partitions").asInt() + ": lead-service needs them equal (one group, range assignor)");
        }
        m.workloadOf("teammate-service").ifPresent(w -> {
            String configured = CrossReferences.containerEnv(m, w).getOrDefault("COHORT_TEAMMATE_PARTITIONS", teammatePartitionsDefault());
            CrossReferences.kafkaTopic(m, "cohort.teammate.inbox").ifPresent(kt -> {
                if (kt.path("spec").path("partitions").asInt() != Integer.parseInt(configured)) {
                    out.add("KafkaTopic cohort.teammate.inbox has " + kt.path("spec").path("partitions").asInt() + " partitions but teammate-service"
                            + " is configured with cohort.teammate.partitions=" + configured);
                }
            });
        });
        return out;
    }

    /** dev: one replica of everything, a single-node Kafka, one PostgreSQL instance. */
    static List<String> dev(Manifest m) {
        List<String> out = new ArrayList<>(common(m));
        for (JsonNode w : m.workloads()) {
            if (Manifest.replicas(w) != 1) {
                out.add(Manifest.id(w) + ": dev runs one replica, not " + Manifest.replicas(w));
            }
        }
        int nodes = m.ofKind("KafkaNodePool").stream().mapToInt(p -> p.path("spec").path("replicas").asInt()).sum();
        if (nodes != 1) {
            out.add("dev Kafka has " + nodes + " nodes, not 1");
        }
        m.ofKind("Cluster").forEach(c -> {
            if (c.path("spec").path("instances").asInt() != 1) {
                out.add(Manifest.id(c) + ": dev runs 1 PostgreSQL instance, not " + c.path("spec").path("instances").asInt());
            }
        });
        return out;
    }

    /** prod: 3 lead-service replicas, KEDA-scaled teammates (lag + running teammates), 3 brokers in KRaft pools, 3 PostgreSQL. */
    static List<String> prod(Manifest m) {
        List<String> out = new ArrayList<>(common(m));
        m.find("Deployment", "lead-service").ifPresent(d -> {
            if (Manifest.replicas(d) != 3) {
                out.add("Deployment/lead-service: prod runs 3 replicas, not " + Manifest.replicas(d));
            }
        });
        Optional<JsonNode> so = m.ofKind("ScaledObject").stream().map(x -> (JsonNode) x)
                .filter(x -> x.path("spec").path("scaleTargetRef").path("name").asText().equals("teammate-service")).findFirst();
        if (so.isEmpty()) {
            out.add("teammate-service has no KEDA ScaledObject");
        } else {
            List<String> types = new ArrayList<>();
            so.get().path("spec").path("triggers").forEach(t -> types.add(t.path("type").asText()));
            if (!types.contains("kafka")) {
                out.add(Manifest.id(so.get()) + ": no kafka trigger (lag of cohort.teammate.inbox)");
            }
            if (!types.contains("prometheus") && !types.contains("metrics-api")) {
                out.add(Manifest.id(so.get()) + ": no second trigger on running teammates (prometheus or metrics-api); triggers " + types);
            }
            for (JsonNode t : so.get().path("spec").path("triggers")) {
                Matcher ns = Pattern.compile("namespace=\"([^\"]+)\"").matcher(t.path("metadata").path("query").asText());
                String own = so.get().path("metadata").path("namespace").asText("");
                while (ns.find()) {
                    if (!ns.group(1).equals(own)) {
                        out.add(Manifest.id(so.get()) + ": the " + t.path("type").asText() + " query counts namespace \"" + ns.group(1)
                                + "\" but the overlay deploys to \"" + own + "\"");
                    }
                }
            }
            int window = so.get().at("/spec/advanced/horizontalPodAutoscalerConfig/behavior/scaleDown/stabilizationWindowSeconds").asInt(0);
            if (window < MIN_SCALE_DOWN_STABILISATION_SECONDS) {
                out.add(Manifest.id(so.get()) + ": scaleDown.stabilizationWindowSeconds " + window + " < " + MIN_SCALE_DOWN_STABILISATION_SECONDS);
            }
            for (JsonNode t : so.get().path("spec").path("triggers")) {
                for (String key : t.path("type").asText().equals("kafka") ? List.of("lagThreshold", "activationLagThreshold", "offsetResetPolicy")
                        : List.<String>of()) {
                    if (!t.path("metadata").has(key)) {
                        out.add(Manifest.id(so.get()) + ": kafka trigger sets no " + key);
                    }
                }
            }
        }
        int brokers = 0;
        int controllers = 0;
        for (JsonNode p : m.ofKind("KafkaNodePool")) {
            List<String> roles = new ArrayList<>();
            p.path("spec").path("roles").forEach(r -> roles.add(r.asText()));
            brokers += roles.contains("broker") ? p.path("spec").path("replicas").asInt() : 0;
            controllers += roles.contains("controller") ? p.path("spec").path("replicas").asInt() : 0;
        }
        if (brokers < 3) {
            out.add("prod Kafka has " + brokers + " brokers, not 3");
        }
        if (controllers < 3) {
            out.add("prod Kafka has " + controllers + " KRaft controllers: a quorum that survives one loss needs 3");
        }
        m.ofKind("Cluster").forEach(c -> {
            if (c.path("spec").path("instances").asInt() != 3) {
                out.add(Manifest.id(c) + ": prod runs 3 PostgreSQL instances, not " + c.path("spec").path("instances").asInt());
            }
            // prod's data outlives its volumes: base backups and the WAL archive in an object store, on a schedule
            JsonNode store = c.path("spec").path("backup").path("barmanObjectStore");
            String path = store.path("destinationPath").asText("");
            if (!path.matches("(s3|gs|https?)://.+") && !path.startsWith("azure")) {
                out.add(Manifest.id(c) + ": prod has no backup object store (spec.backup.barmanObjectStore.destinationPath \"" + path + "\")");
            }
            boolean scheduled = m.ofKind("ScheduledBackup").stream()
                    .anyMatch(b -> b.path("spec").path("cluster").path("name").asText().equals(Manifest.nameOf(c)));
            if (!scheduled) {
                out.add(Manifest.id(c) + ": prod has no ScheduledBackup of it");
            }
        });
        return out;
    }

    /** Objects of the base that hard-code a namespace (the base is namespace-agnostic; overlays may set one). */
    static List<String> namespaced(Manifest base) {
        return base.objects().stream().filter(o -> o.path("metadata").has("namespace"))
                .map(o -> Manifest.id(o) + ": metadata.namespace " + o.path("metadata").path("namespace").asText() + " in the base").toList();
    }

    /** teammate-service's {@code @WithDefault} of {@code partitions()} in TeammateConfig. */
    static String teammatePartitionsDefault() {
        Path f = Manifest.repo().resolve("teammate-service/src/main/java/dev/cohort/teammate/config/TeammateConfig.java");
        try {
            Matcher mt = Pattern.compile("@WithDefault\\(\"(\\d+)\"\\)\\s+int partitions\\(\\)").matcher(Files.readString(f));
            if (!mt.find()) {
                throw new IllegalStateException("no @WithDefault of partitions() in " + f);
            }
            return mt.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Least exposure beyond the pod's own hardening: where images come from and that they cannot change under a tag, what
 * the operators' budgets allow, and health and metrics on a management port that only the kubelet and Prometheus reach.
 */
final class LeastExposure {

    /** The name the pods give their management port, which probes, annotations and PodMonitors refer to. */
    static final String MANAGEMENT = "management";
    /** The namespace the NetworkPolicies admit Prometheus from (k8s/README.md "Operators and versions"). */
    static final String MONITORING_NAMESPACE = "monitoring";
    /** The label Prometheus Operator puts on the Prometheus pods it runs (besides {@code prometheus: <name>}). */
    static final Map<String, String> PROMETHEUS_POD_LABELS = Map.of("app.kubernetes.io/name", "prometheus",
            "app.kubernetes.io/managed-by", "prometheus-operator");
    /** An image reference pinned by digest: {@code <repository>[:<tag>]@sha256:<64 hex digits>}. */
    static final Pattern BY_DIGEST = Pattern.compile("[^@\\s]+@sha256:[0-9a-f]{64}");

    private LeastExposure() {
    }

    /**
     * Every Cohort image names its registry: a first path segment that is a host ({@code ghcr.io},
     * {@code registry:5000}, {@code localhost}). A bare {@code cohort/<service>} is Docker Hub's {@code cohort}
     * namespace, which this project does not own: whoever does decides what the pods run.
     */
    static List<String> cohortImagesNameTheirRegistry(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                if (RunJava.serviceOf(c).isEmpty()) {
                    continue;
                }
                String image = c.path("image").asText();
                int slash = image.indexOf('/');
                String first = slash < 0 ? "" : image.substring(0, slash);
                if (!(first.contains(".") || first.contains(":") || first.equals("localhost"))) {
                    out.add(Manifest.id(w) + " container " + c.path("name").asText() + ": image \"" + image + "\" names no registry:"
                            + " it resolves to docker.io/" + (slash < 0 ? "library/" : "") + image.replaceAll("[:@].*$", "")
                            + ", a namespace this project does not own");
                }
            }
        }
        return out;
    }

    /**
     * The disruption budgets the operators create let a drain through: a one-instance CNPG Cluster disables its PDB
     * ({@code enablePDB: false}; CNPG's PDB keeps the primary, so a single instance could never be evicted), and no
     * Strimzi template sets {@code podDisruptionBudget.maxUnavailable: 0}.
     */
    static List<String> operatorBudgetsAllowEviction(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : m.ofKind("Cluster")) {
            if (c.path("spec").path("instances").asInt(1) == 1 && c.path("spec").path("enablePDB").asBoolean(true)) {
                out.add(Manifest.id(c) + ": one instance with CloudNativePG's PodDisruptionBudget (enablePDB defaults to true):"
                        + " the primary can never be evicted, so a node drain never finishes");
            }
        }
        for (String kind : List.of("Kafka", "KafkaNodePool")) {
            for (JsonNode k : m.ofKind(kind)) {
                List<JsonNode> templates = new ArrayList<>();
                templates.add(k.path("spec").path("template"));
                templates.add(k.path("spec").path("kafka").path("template"));
                for (JsonNode t : templates) {
                    if (t.path("podDisruptionBudget").path("maxUnavailable").asInt(1) == 0) {
                        out.add(Manifest.id(k) + ": podDisruptionBudget.maxUnavailable 0 allows no eviction: a node drain never finishes");
                    }
                }
            }
        }
        return out;
    }

    /**
     * Every image the build names that is not a Cohort image is pinned by digest ({@code …@sha256:<64 hex>}): each
     * container and init container of a workload, and every {@code image} / {@code imageName} field of a custom
     * resource (CNPG's {@code spec.imageName}, an ImageCatalog's images, Strimzi's image overrides). A tag is a name
     * its publisher can move to other content (CloudNativePG rebuilds its PostgreSQL images weekly under the same
     * minor tag); a digest names the content. Cohort's own images are pinned by their release tag
     * ({@code PINNED_IMAGES}), built by whoever deploys them.
     */
    static List<String> thirdPartyImagesPinnedByDigest(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                String image = c.path("image").asText();
                if (RunJava.serviceOf(c).isEmpty() && !BY_DIGEST.matcher(image).matches()) {
                    out.add(Manifest.id(w) + " container " + c.path("name").asText() + ": third-party image \"" + image
                            + "\" is not pinned by digest (@sha256:<64 hex digits>): its tag can be moved to other content");
                }
            }
        }
        for (JsonNode o : m.objects()) {
            // an agent-sandbox pod template's containers are a workload's, checked above (a Cohort image is not third-party)
            if (!BuiltinKinds.isBuiltin(o) && Manifest.podTemplate(o).isEmpty()) {
                imagesIn(o.path("spec"), "spec", Manifest.id(o), out);
            }
        }
        return out;
    }

    private static void imagesIn(JsonNode n, String path, String id, List<String> out) {
        if (n.isObject()) {
            n.properties().forEach(e -> {
                String v = e.getValue().asText();
                if ((e.getKey().equals("image") || e.getKey().equals("imageName")) && e.getValue().isTextual()
                        && !BY_DIGEST.matcher(v).matches()) {
                    out.add(id + ": " + path + "." + e.getKey() + " \"" + v + "\" is not pinned by digest (@sha256:<64 hex digits>):"
                            + " its tag can be moved to other content");
                }
                imagesIn(e.getValue(), path + "." + e.getKey(), id, out);
            });
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                imagesIn(n.get(i), path + "[" + i + "]", id, out);
            }
        }
    }

    /** A Cohort container of a workload with its service's application.properties. */
    private record CohortContainer(JsonNode workload, JsonNode container, String service, Properties properties) {

        String where() {
            return Manifest.id(workload) + " container " + container.path("name").asText();
        }
    }

    /** The (non-init) containers of the build that run a Cohort service whose application.properties exist. */
    private static List<CohortContainer> cohortContainers(Manifest m) {
        List<CohortContainer> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            if (Manifest.isAgentSandbox(w)) {
                continue; // the team sandbox runs the in-pod agent on its port agent, not the service's management interface
            }
            for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                Optional<String> service = RunJava.serviceOf(c);
                Optional<Properties> props = service.flatMap(CrossReferences::applicationProperties);
                if (props.isPresent()) {
                    out.add(new CohortContainer(w, c, service.get(), props.get()));
                }
            }
        }
        return out;
    }

    /** The container's port named {@link #MANAGEMENT}, else the service's configured management port. */
    private static int managementPortOf(Manifest m, CohortContainer cc) {
        for (JsonNode p : cc.container().path("ports")) {
            if (p.path("name").asText().equals(MANAGEMENT)) {
                return p.path("containerPort").asInt();
            }
        }
        return CrossReferences.managementPort(cc.properties(), RunJava.containerEnv(m, cc.container(), v -> Optional.empty()));
    }

    /**
     * Health and metrics are served on the management port and reached there by name: the service builds with
     * {@code quarkus.management.enabled=true} on a port other than its http port (so {@code /q/health} and
     * {@code /q/metrics} are not on the port its Service and the API's policies open); the container names that port
     * {@code management}; the startup, liveness and readiness probes use {@code port: management}; a
     * {@code prometheus.io/port} annotation is that port's number, and every PodMonitor selecting the pods scrapes
     * {@code port: management} (or a {@code targetPort} of that number).
     */
    static List<String> healthAndMetricsOnTheManagementPort(Manifest m) {
        List<String> out = new ArrayList<>();
        for (CohortContainer cc : cohortContainers(m)) {
            JsonNode c = cc.container();
            Map<String, String> env = RunJava.containerEnv(m, c, v -> Optional.empty());
            String httpPort = env.getOrDefault("QUARKUS_HTTP_PORT", CrossReferences.resolve(CrossReferences.property(cc.properties(),
                    "quarkus.http.port", "8080"), env)).strip();
            if (!CrossReferences.managementEnabled(cc.properties())) {
                out.add(cc.where() + ": " + cc.service() + " does not build with quarkus.management.enabled=true: /q/health and /q/metrics"
                        + " are served on its http port " + httpPort + ", which its Service and NetworkPolicies open to its clients");
                continue;
            }
            int management = CrossReferences.managementPort(cc.properties(), env);
            if (String.valueOf(management).equals(httpPort)) {
                out.add(cc.where() + ": the management port " + management + " is the http port: /q/health and /q/metrics are reachable"
                        + " wherever the API is");
            }
            Optional<JsonNode> named = stream(c.path("ports")).filter(p -> p.path("name").asText().equals(MANAGEMENT)).findFirst();
            if (named.isEmpty()) {
                out.add(cc.where() + ": no container port named \"" + MANAGEMENT + "\" (the service's management interface, "
                        + management + "): probes and scrapes cannot name it");
            }
            for (String which : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                JsonNode port = c.path(which).path("httpGet").path("port");
                if (c.has(which) && !(port.isTextual() && port.asText().equals(MANAGEMENT))) {
                    out.add(cc.where() + ": " + which + " is on port " + port + ", not the port named \"" + MANAGEMENT + "\""
                            + " (health is served on the management port only)");
                }
            }
            JsonNode annotations = Manifest.podTemplate(cc.workload()).orElseThrow().path("metadata").path("annotations");
            String expected = named.map(p -> p.path("containerPort").asText()).orElse(String.valueOf(management));
            if (annotations.has("prometheus.io/port") && !annotations.path("prometheus.io/port").asText().equals(expected)) {
                out.add(cc.where() + ": annotation prometheus.io/port " + annotations.path("prometheus.io/port").asText()
                        + " is not the management port " + expected + " (metrics are served there only)");
            }
            for (JsonNode pm : m.ofKind("PodMonitor")) {
                if (!Manifest.selects(pm.path("spec").path("selector"), Manifest.podLabels(cc.workload()))) {
                    continue;
                }
                for (JsonNode ep : pm.path("spec").path("podMetricsEndpoints")) {
                    JsonNode port = ep.has("port") ? ep.path("port") : ep.path("targetPort");
                    // by name, or (targetPort) by the management port's number
                    boolean ok = port.asText().equals(MANAGEMENT) || port.asText().equals(expected);
                    if (!ok) {
                        out.add(Manifest.id(pm) + ": scrapes " + Manifest.id(cc.workload()) + " on port " + port + ", not the port named \""
                                + MANAGEMENT + "\" (metrics are served there only)");
                    }
                }
            }
        }
        return out;
    }

    /** The port numbers of a Cohort workload that serve its management interface: the named port and the configured one. */
    private static Set<Integer> managementPorts(Manifest m, CohortContainer cc) {
        Set<Integer> ports = new LinkedHashSet<>();
        if (CrossReferences.managementEnabled(cc.properties())) {
            ports.add(CrossReferences.managementPort(cc.properties(), RunJava.containerEnv(m, cc.container(), v -> Optional.empty())));
        }
        for (JsonNode p : cc.container().path("ports")) {
            if (p.path("name").asText().equals(MANAGEMENT)) {
                ports.add(p.path("containerPort").asInt());
            }
        }
        return ports;
    }

    /**
     * No Service exposes a management port: a Service port whose {@code targetPort} (else {@code port}) is the name
     * {@code management} or a management port's number would put health and metrics behind the Service's name, for
     * every client the policies let reach it.
     */
    static List<String> managementPortNotInAService(Manifest m) {
        List<String> out = new ArrayList<>();
        List<CohortContainer> cohort = cohortContainers(m);
        for (JsonNode s : m.ofKind("Service")) {
            Map<String, String> sel = Manifest.strings(s.path("spec").path("selector"));
            if (sel.isEmpty()) {
                continue;
            }
            for (CohortContainer cc : cohort) {
                Map<String, String> labels = Manifest.podLabels(cc.workload());
                if (!sel.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
                    continue;
                }
                Set<Integer> management = managementPorts(m, cc);
                for (JsonNode sp : s.path("spec").path("ports")) {
                    JsonNode target = sp.has("targetPort") ? sp.path("targetPort") : sp.path("port");
                    boolean exposes = target.isTextual() && !target.asText().matches("\\d+") ? target.asText().equals(MANAGEMENT)
                            : management.contains(target.asInt());
                    if (exposes) {
                        out.add(Manifest.id(s) + ": port " + sp.path("name").asText(sp.path("port").asText()) + " (targetPort " + target
                                + ") exposes the management port of " + Manifest.id(cc.workload()) + ": health and metrics behind the"
                                + " Service, for every client its policies admit");
                    }
                }
            }
        }
        return out;
    }

    /**
     * The management port is reachable only from Prometheus, and Prometheus only there: each Cohort workload's pods are
     * isolated for ingress; every ingress rule that admits the management port admits only peers of the
     * {@code monitoring} namespace (a {@code namespaceSelector} that selects it and no other namespace); Prometheus's
     * pods ({@link #PROMETHEUS_POD_LABELS} in {@code monitoring}) may reach it when the pods are scraped (a
     * {@code prometheus.io/scrape} annotation or a PodMonitor); and no rule admits the monitoring namespace on another
     * port of the pod — the API's port serves no {@code /q}, so a scrape rule there opens the API and scrapes nothing.
     * The kubelet's probes are not subject to NetworkPolicy on mainstream CNIs and need no rule.
     */
    static List<String> managementPortOnlyFromMonitoring(Manifest m) {
        List<String> out = new ArrayList<>();
        Map<String, String> monitoring = NetworkFlows.nsLabels(MONITORING_NAMESPACE);
        Map<String, String> elsewhere = NetworkFlows.nsLabels("some-other-namespace");
        for (CohortContainer cc : cohortContainers(m)) {
            JsonNode w = cc.workload();
            NetworkFlows.Endpoint self = NetworkFlows.pods(m, w);
            int management = managementPortOf(m, cc);
            Set<Integer> otherPorts = new LinkedHashSet<>();
            for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                c.path("ports").forEach(p -> otherPorts.add(p.path("containerPort").asInt()));
            }
            otherPorts.remove(management);
            boolean isolated = false;
            for (JsonNode np : m.ofKind("NetworkPolicy")) {
                JsonNode spec = np.path("spec");
                if (!Manifest.selects(spec.path("podSelector"), self.podLabels()) || !ingressType(spec)) {
                    continue;
                }
                isolated = true;
                for (JsonNode rule : spec.path("ingress")) {
                    if (admitsPort(rule, management, self.namedPorts())) {
                        if (rule.path("from").isEmpty()) {
                            out.add(Manifest.id(np) + ": admits every source on the management port " + management + " of " + Manifest.id(w)
                                    + ": only Prometheus in " + MONITORING_NAMESPACE + " may reach it");
                        }
                        for (JsonNode peer : rule.path("from")) {
                            if (!onlyMonitoring(peer, monitoring, elsewhere)) {
                                out.add(Manifest.id(np) + ": admits " + peer + " on the management port " + management + " of " + Manifest.id(w)
                                        + ": only Prometheus in " + MONITORING_NAMESPACE + " may reach it");
                            }
                        }
                    }
                    for (int other : otherPorts) {
                        if (!admitsPort(rule, other, self.namedPorts())) {
                            continue;
                        }
                        // a peer meant for monitoring (its namespace and no other) on another port: a scrape rule left on the API
                        boolean monitoringPeer = false;
                        for (JsonNode peer : rule.path("from")) {
                            monitoringPeer |= onlyMonitoring(peer, monitoring, elsewhere);
                        }
                        if (monitoringPeer) {
                            out.add(Manifest.id(np) + ": admits " + MONITORING_NAMESPACE + " on port " + other + " of " + Manifest.id(w)
                                    + ", which is not the management port: metrics are not served there, the rule only opens the API");
                        }
                    }
                }
            }
            if (!isolated) {
                out.add(Manifest.id(w) + ": no NetworkPolicy isolates its pods for ingress: anything in the cluster reaches its management"
                        + " port " + management);
            }
            JsonNode annotations = Manifest.podTemplate(w).orElseThrow().path("metadata").path("annotations");
            boolean scraped = annotations.path("prometheus.io/scrape").asText().equals("true")
                    || m.ofKind("PodMonitor").stream().anyMatch(pm -> Manifest.selects(pm.path("spec").path("selector"), self.podLabels()));
            Map<String, String> prometheusLabels = new LinkedHashMap<>(PROMETHEUS_POD_LABELS);
            NetworkFlows.Endpoint prometheus = new NetworkFlows.Endpoint("Prometheus", monitoring, prometheusLabels, Map.of());
            if (scraped && !NetworkFlows.allowed(m, "Ingress", self, prometheus, management, "TCP")) {
                out.add(Manifest.id(w) + ": Prometheus (" + PROMETHEUS_POD_LABELS + " in " + MONITORING_NAMESPACE + ") may not reach the"
                        + " management port " + management + " that it scrapes");
            }
        }
        return out;
    }

    /**
     * Whether a peer of an ingress rule is in the monitoring namespace and no other: a {@code namespaceSelector} that
     * selects a namespace labelled {@code kubernetes.io/metadata.name: monitoring} (the label the API server gives
     * every namespace, its name) and not one with another name; no ipBlock; a peer without a namespaceSelector is the
     * policy's own namespace.
     */
    private static boolean onlyMonitoring(JsonNode peer, Map<String, String> monitoring, Map<String, String> elsewhere) {
        JsonNode ns = peer.path("namespaceSelector");
        return !peer.has("ipBlock") && peer.has("namespaceSelector") && Manifest.selects(ns, monitoring) && !Manifest.selects(ns, elsewhere);
    }

    private static boolean ingressType(JsonNode spec) {
        if (spec.path("policyTypes").isEmpty()) {
            return true;
        }
        for (JsonNode t : spec.path("policyTypes")) {
            if (t.asText().equals("Ingress")) {
                return true;
            }
        }
        return false;
    }

    /** Whether a rule's {@code ports} admit TCP {@code port} (no ports: every port; a name resolved on the pod). */
    private static boolean admitsPort(JsonNode rule, int port, Map<String, Integer> namedPorts) {
        if (rule.path("ports").isEmpty()) {
            return true;
        }
        for (JsonNode p : rule.path("ports")) {
            if (!p.path("protocol").asText("TCP").equals("TCP")) {
                continue;
            }
            JsonNode pp = p.path("port");
            if (pp.isMissingNode()) {
                return true;
            }
            int from = pp.isTextual() && !pp.asText().matches("\\d+") ? namedPorts.getOrDefault(pp.asText(), -1) : pp.asInt();
            if (port >= from && port <= p.path("endPort").asInt(from)) {
                return true;
            }
        }
        return false;
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> l = new ArrayList<>();
        array.forEach(l::add);
        return l.stream();
    }
}

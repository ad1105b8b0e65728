package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.StreamSupport;

/**
 * The pods' hardening policies as pure functions of a build: each returns its violations, one line per object and
 * rule, so a test can name exactly what broke.
 */
final class Hardening {

    /** Env names that carry credentials: their value must come from a Secret. */
    static final Pattern SECRET_NAME = Pattern.compile("(?i).*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|CREDENTIAL).*");
    /** Values that look like credentials whatever their name (OpenAI/GitHub/AWS keys, PEM, JWT, user:pass@ URLs). */
    static final Pattern SECRET_VALUE = Pattern.compile(
            "(?s)(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
                    + "|eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\..*|[a-z][a-z0-9+.-]*://[^/\\s:@]+:[^/\\s@]+@.*|.*[?&;]password=[^&;\\s]+.*)");

    private Hardening() {
    }

    /** Runs {@code check} on every container (init containers too) of every workload, with its pod spec. */
    private static List<String> perContainer(Manifest m, Check c) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            JsonNode pod = Manifest.podTemplate(w).orElseThrow().path("spec");
            for (JsonNode container : Manifest.containers(w)) {
                String id = Manifest.id(w) + " container " + container.path("name").asText();
                c.check(id, pod, container, msg -> out.add(id + ": " + msg));
            }
        }
        return out;
    }

    @FunctionalInterface
    private interface Check {
        void check(String id, JsonNode pod, JsonNode container, Consumer<String> violation);
    }

    /** A container's setting, else the pod's (the API's override order). */
    private static JsonNode effective(JsonNode pod, JsonNode container, String field) {
        JsonNode c = container.path("securityContext").path(field);
        return c.isMissingNode() || c.isNull() ? pod.path("securityContext").path(field) : c;
    }

    static List<String> runAsNonRoot(Manifest m) {
        return perContainer(m, (id, pod, c, v) -> {
            if (!effective(pod, c, "runAsNonRoot").asBoolean(false)) {
                v.accept("runAsNonRoot is not true (pod or container securityContext)");
            }
            if (effective(pod, c, "runAsUser").isIntegralNumber() && effective(pod, c, "runAsUser").asLong() == 0) {
                v.accept("runAsUser is 0 (root)");
            }
        });
    }

    static List<String> readOnlyRootFilesystem(Manifest m) {
        return perContainer(m, (id, pod, c, v) -> {
            if (!c.path("securityContext").path("readOnlyRootFilesystem").asBoolean(false)) {
                v.accept("securityContext.readOnlyRootFilesystem is not true");
            }
            Set<String> emptyDirs = new HashSet<>();
            pod.path("volumes").forEach(vol -> {
                if (vol.has("emptyDir")) {
                    emptyDirs.add(vol.path("name").asText());
                }
            });
            boolean tmp = false;
            for (JsonNode vm : c.path("volumeMounts")) {
                if (vm.path("mountPath").asText().replaceAll("/+$", "").equals("/tmp") && emptyDirs.contains(vm.path("name").asText())) {
                    tmp = true;
                }
            }
            if (!tmp) {
                v.accept("no emptyDir volume mounted at /tmp (a read-only root filesystem leaves the JVM nowhere to write)");
            }
        });
    }

    static List<String> dropAllCapabilities(Manifest m) {
        return perContainer(m, (id, pod, c, v) -> {
            Set<String> drop = new HashSet<>();
            c.path("securityContext").path("capabilities").path("drop").forEach(x -> drop.add(x.asText()));
            if (!drop.contains("ALL")) {
                v.accept("securityContext.capabilities.drop does not contain ALL");
            }
            if (!c.path("securityContext").path("capabilities").path("add").isEmpty()) {
                v.accept("securityContext.capabilities.add is not empty: " + c.path("securityContext").path("capabilities").path("add"));
            }
        });
    }

    static List<String> noPrivilegeEscalation(Manifest m) {
        return perContainer(m, (id, pod, c, v) -> {
            JsonNode ape = c.path("securityContext").path("allowPrivilegeEscalation");
            if (!ape.isBoolean() || ape.asBoolean()) {
                v.accept("securityContext.allowPrivilegeEscalation is not false");
            }
            if (c.path("securityContext").path("privileged").asBoolean(false)) {
                v.accept("securityContext.privileged is true");
            }
        });
    }

    static List<String> seccompRuntimeDefault(Manifest m) {
        return perContainer(m, (id, pod, c, v) -> {
            String type = effective(pod, c, "seccompProfile").path("type").asText();
            if (!type.equals("RuntimeDefault")) {
                v.accept("seccompProfile.type is \"" + type + "\", not RuntimeDefault (pod or container)");
            }
        });
    }

    /**
     * Pods mount no API token: the pod says false, or its (existing, non-default) ServiceAccount does; every SA says
     * false. One exception: the tool runner's pod, the control half of the team sandboxes, mounts its ServiceAccount's
     * token to claim them, and that account may be bound only to a Role limited to agent-sandbox's claims and
     * sandboxes ({@code SANDBOX_RBAC_ONLY_ITS_RESOURCES}).
     */
    static List<String> noServiceAccountToken(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode sa : m.ofKind("ServiceAccount")) {
            JsonNode a = sa.path("automountServiceAccountToken");
            if (!a.isBoolean() || a.asBoolean()) {
                out.add(Manifest.id(sa) + ": automountServiceAccountToken is not false");
            }
        }
        for (JsonNode w : m.workloads()) {
            JsonNode pod = Manifest.podTemplate(w).orElseThrow().path("spec");
            JsonNode podSetting = pod.path("automountServiceAccountToken");
            String saName = pod.path("serviceAccountName").asText("default");
            Optional<JsonNode> sa = m.find("ServiceAccount", saName).map(x -> x);
            boolean mounts = podSetting.isBoolean() ? podSetting.asBoolean()
                    : sa.map(s -> s.path("automountServiceAccountToken").asBoolean(true)).orElse(true);
            if (mounts && !(saName.equals(TeamSandboxPolicy.TOOL_RUNNER_SA) && !Manifest.isAgentSandbox(w))) {
                out.add(Manifest.id(w) + ": the pod mounts a service account token (automountServiceAccountToken not false on the pod"
                        + " nor on ServiceAccount/" + saName + ")");
            }
            if (pod.has("serviceAccountName") && sa.isEmpty()) {
                out.add(Manifest.id(w) + ": serviceAccountName " + saName + " is not a ServiceAccount of the build");
            }
        }
        return out;
    }

    /** Whether a policy denies everything: all pods, both directions, no rule. */
    static boolean isDefaultDeny(JsonNode np) {
        JsonNode spec = np.path("spec");
        Set<String> types = new HashSet<>();
        spec.path("policyTypes").forEach(t -> types.add(t.asText()));
        return spec.path("podSelector").isObject() && spec.path("podSelector").isEmpty() && types.containsAll(Set.of("Ingress", "Egress"))
                && spec.path("ingress").isEmpty() && spec.path("egress").isEmpty();
    }

    static List<String> defaultDenyNetworkPolicy(Manifest m) {
        return m.ofKind("NetworkPolicy").stream().anyMatch(Hardening::isDefaultDeny) ? List.of()
                : List.of("no default-deny NetworkPolicy (podSelector {}, policyTypes [Ingress, Egress], no rules)");
    }

    /** Whether an egress rule only opens DNS (every port is 53). */
    static boolean isDnsOnly(JsonNode rule) {
        JsonNode ports = rule.path("ports");
        if (ports.isEmpty()) {
            return false;
        }
        for (JsonNode p : ports) {
            if (!p.path("port").asText().equals("53")) {
                return false;
            }
        }
        return true;
    }

    /** Every workload is selected by an allow policy that opens more than DNS (its real flows). */
    static List<String> everyWorkloadHasAnAllowPolicy(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            Map<String, String> labels = Manifest.podLabels(w);
            boolean allowed = m.ofKind("NetworkPolicy").stream()
                    .filter(np -> !isDefaultDeny(np) && Manifest.selects(np.path("spec").path("podSelector"), labels))
                    .anyMatch(np -> !np.path("spec").path("ingress").isEmpty()
                            || StreamSupport.stream(np.path("spec").path("egress").spliterator(), false).anyMatch(r -> !isDnsOnly(r)));
            if (!allowed) {
                out.add(Manifest.id(w) + ": no NetworkPolicy but default-deny/DNS selects its pods " + labels + ": under default-deny it can"
                        + " reach nothing");
            }
        }
        return out;
    }

    /**
     * The tool runner's egress: DNS, the in-cluster Kafka and PostgreSQL it needs (pod selectors of the operators'
     * cluster labels, on their ports) and an ipBlock allowlist with ports; nothing open-ended.
     */
    /**
     * The tool runner starts processes (commands, their children, {@code git}); a command's leftovers are killed after
     * it and re-parented to the container's PID 1. In the image that is the runner's JVM ({@code run-java.sh} execs
     * it), which reaps only its own children: the rest would stay zombies until the pod's PID limit stops every call.
     * With {@code shareProcessNamespace} the pod's pause process is PID 1 and reaps them.
     */
    static List<String> toolRunnerReapsOrphans(Manifest m) {
        Optional<ObjectNode> runner = m.workloadOf("tool-runner-service");
        if (runner.isEmpty()) {
            return List.of("no workload with app.kubernetes.io/name=tool-runner-service");
        }
        JsonNode pod = Manifest.podTemplate(runner.get()).orElseThrow().path("spec");
        return pod.path("shareProcessNamespace").asBoolean(false) ? List.of()
                : List.of(Manifest.id(runner.get()) + ": shareProcessNamespace is not true: the runner's JVM would be the"
                        + " container's PID 1, and the orphans of the commands it runs would stay zombies");
    }

    static List<String> toolRunnerEgress(Manifest m) {
        List<String> out = new ArrayList<>();
        Optional<ObjectNode> runner = m.workloadOf("tool-runner-service");
        if (runner.isEmpty()) {
            return List.of("no workload with app.kubernetes.io/name=tool-runner-service");
        }
        Map<String, String> labels = Manifest.podLabels(runner.get());
        for (JsonNode np : m.ofKind("NetworkPolicy")) {
            if (!Manifest.selects(np.path("spec").path("podSelector"), labels)) {
                continue;
            }
            JsonNode egress = np.path("spec").path("egress");
            for (int i = 0; i < egress.size(); i++) {
                JsonNode rule = egress.get(i);
                String where = Manifest.id(np) + " egress[" + i + "]";
                if (isDnsOnly(rule)) {
                    continue;
                }
                if (rule.path("ports").isEmpty()) {
                    out.add(where + ": opens every port to the tool runner");
                }
                if (rule.path("to").isEmpty()) {
                    out.add(where + ": opens every destination to the tool runner");
                }
                for (JsonNode peer : rule.path("to")) {
                    if (peer.has("ipBlock")) {
                        if (Cidr.isEverything(peer.path("ipBlock").path("cidr").asText())) {
                            out.add(where + ": ipBlock " + peer.path("ipBlock").path("cidr").asText() + " is the whole internet, not an allowlist");
                        }
                    } else if (peer.has("namespaceSelector") && !peer.has("podSelector")) {
                        out.add(where + ": a namespaceSelector without podSelector opens whole namespaces to the tool runner");
                    } else if (!peer.has("namespaceSelector") && isTeamSandboxAgentPort(m, peer, rule)) {
                        continue; // the team sandboxes of the build, on their agent port only (components/agent-sandbox)
                    } else {
                        Map<String, String> sel = Manifest.strings(peer.path("podSelector").path("matchLabels"));
                        if (!sel.containsKey("strimzi.io/cluster") && !sel.containsKey("cnpg.io/cluster")) {
                            out.add(where + ": peer " + peer + " is neither DNS, the Kafka/PostgreSQL cluster nor an ipBlock allowlist");
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * Whether an egress peer selects exactly agent-sandbox pods of the build (its pod selector matches a SandboxTemplate's
     * pods and no other workload's) and the rule opens only their container ports named {@code agent}.
     */
    static boolean isTeamSandboxAgentPort(Manifest m, JsonNode peer, JsonNode rule) {
        JsonNode selector = peer.path("podSelector");
        List<JsonNode> selected = m.workloads().stream().filter(w -> Manifest.selects(selector, Manifest.podLabels(w))).map(w -> (JsonNode) w).toList();
        if (selected.isEmpty() || !selected.stream().allMatch(Manifest::isAgentSandbox) || rule.path("ports").isEmpty()) {
            return false;
        }
        for (JsonNode p : rule.path("ports")) {
            if (!p.path("port").asText().equals("agent")) {
                return false;
            }
        }
        return true;
    }

    /** Credentials reach containers only as named keys of a Secret ({@code secretKeyRef}); no Secret with values is committed. */
    static List<String> secretsOnlyViaSecretKeyRef(Manifest m) {
        List<String> out = perContainer(m, (id, pod, c, v) -> {
            for (JsonNode e : c.path("env")) {
                String name = e.path("name").asText();
                if (SECRET_NAME.matcher(name).matches() && !e.path("valueFrom").has("secretKeyRef")) {
                    v.accept("env " + name + " is a credential but does not come from valueFrom.secretKeyRef");
                }
            }
            for (JsonNode ef : c.path("envFrom")) {
                if (ef.has("secretRef")) {
                    v.accept("envFrom.secretRef " + ef.path("secretRef").path("name").asText() + " imports every key of a Secret: name each with secretKeyRef");
                }
            }
        });
        for (JsonNode s : m.ofKind("Secret")) {
            if (!s.path("data").isEmpty() || !s.path("stringData").isEmpty()) {
                out.add(Manifest.id(s) + ": a Secret with values is committed (create it with kubectl create secret, see the README)");
            }
        }
        return out;
    }

    /** No literal credential: not in env values, not in ConfigMaps, whatever the key is called. */
    static List<String> noLiteralSecretValues(Manifest m) {
        List<String> out = perContainer(m, (id, pod, c, v) -> {
            for (JsonNode e : c.path("env")) {
                String name = e.path("name").asText();
                String value = e.path("value").asText("");
                if (!value.isEmpty() && (SECRET_NAME.matcher(name).matches() || SECRET_VALUE.matcher(value).matches())) {
                    v.accept("env " + name + " has a literal secret-looking value");
                }
            }
        });
        for (JsonNode cm : m.ofKind("ConfigMap")) {
            cm.path("data").properties().forEach(e -> {
                String value = e.getValue().asText("");
                if (!value.isEmpty() && (SECRET_NAME.matcher(e.getKey()).matches() || SECRET_VALUE.matcher(value).matches())) {
                    out.add(Manifest.id(cm) + ": data " + e.getKey() + " is a literal secret-looking value (use a Secret)");
                }
            });
        }
        return out;
    }

    /** An image reference has a tag other than {@code latest}, or a digest. */
    static boolean isPinned(String image) {
        if (image.contains("@sha256:")) {
            return true;
        }
        String last = image.substring(image.lastIndexOf('/') + 1);
        int colon = last.lastIndexOf(':');
        return colon > 0 && colon < last.length() - 1 && !last.substring(colon + 1).equals("latest");
    }

    static List<String> pinnedImages(Manifest m) {
        List<String> out = new ArrayList<>();
        // the operators' pods: CNPG's spec.imageName, Strimzi's image overrides, anywhere in a custom resource
        for (JsonNode o : m.objects()) {
            if (!BuiltinKinds.isBuiltin(o)) {
                imagesIn(o.path("spec"), "spec", Manifest.id(o), out);
            }
        }
        out.addAll(perContainer(m, (id, pod, c, v) -> {
            String image = c.path("image").asText();
            if (!isPinned(image)) {
                v.accept("image \"" + image + "\" is not pinned (no tag, or :latest)");
            }
        }));
        return out;
    }

    private static void imagesIn(JsonNode n, String path, String id, List<String> out) {
        if (n.isObject()) {
            n.properties().forEach(e -> {
                if ((e.getKey().equals("image") || e.getKey().equals("imageName")) && e.getValue().isTextual() && !isPinned(e.getValue().asText())) {
                    out.add(id + ": " + path + "." + e.getKey() + " \"" + e.getValue().asText() + "\" is not pinned (no tag, or :latest)");
                }
                imagesIn(e.getValue(), path + "." + e.getKey(), id, out);
            });
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                imagesIn(n.get(i), path + "[" + i + "]", id, out);
            }
        }
    }

    static List<String> healthProbes(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            if (Manifest.isAgentSandbox(w)) {
                continue; // the sandbox agent is no Quarkus service: no /q/health (TeamSandboxPolicy checks its pod)
            }
            for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                String id = Manifest.id(w) + " container " + c.path("name").asText();
                BiConsumer<String, String> probe = (which, path) -> {
                    JsonNode p = c.path(which).path("httpGet");
                    if (!p.path("path").asText().equals(path)) {
                        out.add(id + ": " + which + " is not an httpGet on " + path + " (found " + c.path(which) + ")");
                    }
                };
                probe.accept("livenessProbe", "/q/health/live");
                probe.accept("readinessProbe", "/q/health/ready");
            }
        }
        return out;
    }

    static List<String> requestsAndLimits(Manifest m) {
        List<String> out = perContainer(m, (id, pod, c, v) -> resources(c.path("resources"), "resources", v));
        // the pods the operators run for us: Kafka nodes (per node pool), the entity operator's containers, PostgreSQL
        for (JsonNode p : m.ofKind("KafkaNodePool")) {
            resources(p.path("spec").path("resources"), "spec.resources", v -> out.add(Manifest.id(p) + ": " + v));
        }
        for (JsonNode k : m.ofKind("Kafka")) {
            JsonNode eo = k.path("spec").path("entityOperator");
            for (String op : List.of("topicOperator", "userOperator")) {
                if (eo.has(op)) {
                    resources(eo.path(op).path("resources"), "spec.entityOperator." + op + ".resources", v -> out.add(Manifest.id(k) + ": " + v));
                }
            }
        }
        for (JsonNode cl : m.ofKind("Cluster")) {
            resources(cl.path("spec").path("resources"), "spec.resources", v -> out.add(Manifest.id(cl) + ": " + v));
        }
        return out;
    }

    private static void resources(JsonNode resources, String where, Consumer<String> violation) {
        for (String kind : List.of("requests", "limits")) {
            for (String r : List.of("cpu", "memory")) {
                if (!resources.path(kind).has(r)) {
                    violation.accept(where + "." + kind + "." + r + " is not set");
                }
            }
        }
    }
}

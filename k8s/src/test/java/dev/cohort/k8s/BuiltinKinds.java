package dev.cohort.k8s;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Built-in kinds, checked like the API server would: the object must map onto fabric8's model with no unknown field
 * anywhere in its tree and no type mismatch (no scalar coercion: {@code "3"} is not an int), and it must pass the
 * API server's required-field and format rules that fabric8 does not enforce (names, selectors, ports, env sources,
 * probes, volume mounts, requests ≤ limits, …).
 */
final class BuiltinKinds {

    /** apiVersion/kind → fabric8 class: the kinds {@code k8s/} may use; anything else is "no matches for kind". */
    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.ofEntries(
            Map.entry("v1/ServiceAccount", ServiceAccount.class), Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/Service", Service.class), Map.entry("v1/Secret", Secret.class),
            Map.entry("v1/PersistentVolumeClaim", PersistentVolumeClaim.class),
            Map.entry("apps/v1/Deployment", Deployment.class), Map.entry("apps/v1/StatefulSet", StatefulSet.class),
            Map.entry("apps/v1/DaemonSet", DaemonSet.class), Map.entry("batch/v1/Job", Job.class),
            Map.entry("batch/v1/CronJob", CronJob.class), Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class),
            Map.entry("rbac.authorization.k8s.io/v1/Role", Role.class),
            Map.entry("rbac.authorization.k8s.io/v1/RoleBinding", RoleBinding.class));

    /** Strict: no scalar coercion, every field of the JSON must land in a typed field or it is reported. */
    static final ObjectMapper STRICT = JsonMapper.builder()
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern IANA_SVC_NAME = Pattern.compile("(?=.*[a-z])[a-z0-9]([a-z0-9-]*[a-z0-9])?");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern CONFIG_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static final Pattern ENV_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");

    private BuiltinKinds() {
    }

    /** Whether the object is a built-in kind (its apiVersion group is not one of a CRD). */
    static boolean isBuiltin(JsonNode o) {
        String api = o.path("apiVersion").asText();
        return !api.contains(".") || api.endsWith(".k8s.io/v1") || api.contains(".k8s.io/");
    }

    /** Unknown fields and type errors of every built-in object. */
    static List<String> unknownFieldsAndTypes(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode o : m.objects()) {
            if (!isBuiltin(o)) {
                continue;
            }
            String key = o.path("apiVersion").asText() + "/" + o.path("kind").asText();
            Class<? extends HasMetadata> type = KINDS.get(key);
            if (type == null) {
                out.add(Manifest.id(o) + ": no matches for kind \"" + o.path("kind").asText() + "\" in version \""
                        + o.path("apiVersion").asText() + "\"");
                continue;
            }
            try {
                Object typed = STRICT.treeToValue(o, type);
                walk(typed, "", out, Manifest.id(o), new IdentityHashMap<>());
            } catch (JsonMappingException e) {
                out.add(Manifest.id(o) + ": " + pathOf(e) + ": " + e.getOriginalMessage());
            } catch (Exception e) {
                out.add(Manifest.id(o) + ": cannot read as " + type.getSimpleName() + ": " + e.getMessage());
            }
        }
        return out;
    }

    /** The typed object (lenient, for policies), or null if it cannot be read at all. */
    static <T> T typed(JsonNode o, Class<T> type) {
        try {
            return STRICT.treeToValue(o, type);
        } catch (Exception e) {
            return null;
        }
    }

    private static String pathOf(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (var r : e.getPath()) {
            if (r.getFieldName() != null) {
                b.append(b.isEmpty() ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    /** Walks fabric8 getters; any non-empty {@code additionalProperties} is a field the API server does not know. */
    private static void walk(Object node, String path, List<String> out, String id, IdentityHashMap<Object, Boolean> seen) {
        if (node == null || seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        if (node instanceof Collection<?> c) {
            int i = 0;
            for (Object x : c) {
                walk(x, path + "[" + i++ + "]", out, id, seen);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            for (var e : map.entrySet()) {
                walk(e.getValue(), path + "." + e.getKey(), out, id, seen);
            }
            return;
        }
        if (!(node instanceof KubernetesResource) && !node.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers()) || !getter.getName().startsWith("get")
                    || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(node);
            } catch (ReflectiveOperationException | RuntimeException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    for (Object k : extra.keySet()) {
                        out.add(id + ": unknown field \"" + (path.isEmpty() ? "" : path.substring(1) + ".") + k + "\"");
                    }
                }
                continue;
            }
            String field = Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
            walk(value, path + "." + field, out, id, seen);
        }
    }

    // ---- required fields and formats (the API server's validation, for the fields k8s/ uses)

    /** Required fields, names and formats the API server's validation enforces and fabric8 does not. */
    static List<String> requiredFields(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode o : m.objects()) {
            String id = Manifest.id(o);
            String name = Manifest.nameOf(o);
            if (name.isEmpty()) {
                out.add(id + ": metadata.name: Required value");
            } else if (name.length() > 253 || !DNS1123_SUBDOMAIN.matcher(name).matches()) {
                out.add(id + ": metadata.name: Invalid value \"" + name + "\": a lowercase RFC 1123 subdomain");
            }
            if (o.path("kind").asText().isEmpty() || o.path("apiVersion").asText().isEmpty()) {
                out.add(id + ": apiVersion and kind: Required value");
            }
            labels(id, "metadata.labels", o.path("metadata").path("labels"), out);
            if (!isBuiltin(o)) {
                continue;
            }
            switch (o.path("kind").asText()) {
                case "Service" -> service(id, o, out);
                case "PersistentVolumeClaim" -> pvc(id, o, out);
                case "PodDisruptionBudget" -> pdb(id, o, out);
                case "ConfigMap" -> o.path("data").fieldNames().forEachRemaining(k -> {
                    if (!CONFIG_KEY.matcher(k).matches()) {
                        out.add(id + ": data[" + k + "]: Invalid value: a valid config key must consist of alphanumerics, '-', '_' or '.'");
                    }
                });
                case "NetworkPolicy" -> networkPolicy(id, o, out);
                default -> {
                }
            }
            if (Manifest.podTemplate(o).isPresent()) {
                workload(id, o, out);
            }
        }
        return out;
    }

    private static void labels(String id, String where, JsonNode labels, List<String> out) {
        labels.properties().forEach(e -> {
            String k = e.getKey();
            String name = k.contains("/") ? k.substring(k.indexOf('/') + 1) : k;
            String prefix = k.contains("/") ? k.substring(0, k.indexOf('/')) : "";
            if (name.length() > 63 || !LABEL_NAME.matcher(name).matches() || (!prefix.isEmpty() && !DNS1123_SUBDOMAIN.matcher(prefix).matches())) {
                out.add(id + ": " + where + ": Invalid value: \"" + k + "\": not a qualified name");
            }
            String v = e.getValue().asText();
            if (!e.getValue().isTextual() || v.length() > 63 || !LABEL_VALUE.matcher(v).matches()) {
                out.add(id + ": " + where + "[" + k + "]: Invalid value: \"" + v + "\": a label value must be a string of at most 63"
                        + " alphanumerics, '-', '_' or '.'");
            }
        });
    }

    private static void service(String id, JsonNode o, List<String> out) {
        Service s = typed(o, Service.class);
        if (s == null || s.getSpec() == null) {
            out.add(id + ": spec: Required value");
            return;
        }
        if (!DNS1035_LABEL.matcher(Manifest.nameOf(o)).matches()) {
            out.add(id + ": metadata.name: a Service name must be an RFC 1035 label");
        }
        List<ServicePort> ports = s.getSpec().getPorts();
        if (ports == null || ports.isEmpty()) {
            out.add(id + ": spec.ports: Required value");
            return;
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            ServicePort p = ports.get(i);
            if (p.getPort() == null || p.getPort() < 1 || p.getPort() > 65535) {
                out.add(id + ": spec.ports[" + i + "].port: Required value (1-65535)");
            }
            if (ports.size() > 1 && (p.getName() == null || p.getName().isEmpty())) {
                out.add(id + ": spec.ports[" + i + "].name: Required value (more than one port)");
            }
            if (p.getName() != null && !names.add(p.getName())) {
                out.add(id + ": spec.ports[" + i + "].name: Duplicate value \"" + p.getName() + "\"");
            }
        }
    }

    private static void pvc(String id, JsonNode o, List<String> out) {
        PersistentVolumeClaim p = typed(o, PersistentVolumeClaim.class);
        if (p == null || p.getSpec() == null || p.getSpec().getAccessModes() == null || p.getSpec().getAccessModes().isEmpty()) {
            out.add(id + ": spec.accessModes: Required value");
        } else {
            for (String mode : p.getSpec().getAccessModes()) {
                if (!Set.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod").contains(mode)) {
                    out.add(id + ": spec.accessModes: Unsupported value: \"" + mode + "\"");
                }
            }
        }
        if (p == null || p.getSpec() == null || p.getSpec().getResources() == null || p.getSpec().getResources().getRequests() == null
                || !p.getSpec().getResources().getRequests().containsKey("storage")) {
            out.add(id + ": spec.resources[storage]: Required value");
        }
    }

    private static void pdb(String id, JsonNode o, List<String> out) {
        JsonNode spec = o.path("spec");
        if (spec.has("minAvailable") && spec.has("maxUnavailable")) {
            out.add(id + ": spec: Invalid value: minAvailable and maxUnavailable cannot be both set");
        }
        if (!spec.has("selector")) {
            out.add(id + ": spec.selector: Required value (a PDB without a selector protects nothing)");
        }
    }

    private static void networkPolicy(String id, JsonNode o, List<String> out) {
        NetworkPolicy np = typed(o, NetworkPolicy.class);
        if (np == null || np.getSpec() == null) {
            out.add(id + ": spec: Required value");
            return;
        }
        for (String t : Objects.requireNonNullElse(np.getSpec().getPolicyTypes(), List.<String>of())) {
            if (!t.equals("Ingress") && !t.equals("Egress")) {
                out.add(id + ": spec.policyTypes: Unsupported value: \"" + t + "\"");
            }
        }
        List<NetworkPolicyPeer> peers = new ArrayList<>();
        Objects.requireNonNullElse(np.getSpec().getIngress(), List.<NetworkPolicyIngressRule>of())
                .forEach(r -> {
                    peers.addAll(Objects.requireNonNullElse(r.getFrom(), List.of()));
                    Objects.requireNonNullElse(r.getPorts(), List.<NetworkPolicyPort>of())
                            .forEach(p -> protocol(id, p.getProtocol(), out));
                });
        Objects.requireNonNullElse(np.getSpec().getEgress(), List.<NetworkPolicyEgressRule>of())
                .forEach(r -> {
                    peers.addAll(Objects.requireNonNullElse(r.getTo(), List.of()));
                    Objects.requireNonNullElse(r.getPorts(), List.<NetworkPolicyPort>of())
                            .forEach(p -> protocol(id, p.getProtocol(), out));
                });
        for (NetworkPolicyPeer p : peers) {
            if (p.getIpBlock() != null) {
                if (p.getPodSelector() != null || p.getNamespaceSelector() != null) {
                    out.add(id + ": ipBlock may not be combined with podSelector/namespaceSelector in one peer");
                }
                if (!Cidr.valid(p.getIpBlock().getCidr())) {
                    out.add(id + ": ipBlock.cidr: Invalid value: \"" + p.getIpBlock().getCidr() + "\"");
                }
                for (String ex : Objects.requireNonNullElse(p.getIpBlock().getExcept(), List.<String>of())) {
                    if (!Cidr.valid(ex) || !Cidr.contains(p.getIpBlock().getCidr(), ex)) {
                        out.add(id + ": ipBlock.except: Invalid value: \"" + ex + "\" must be inside " + p.getIpBlock().getCidr());
                    }
                }
            }
        }
    }

    private static void protocol(String id, String protocol, List<String> out) {
        if (protocol != null && !Set.of("TCP", "UDP", "SCTP").contains(protocol)) {
            out.add(id + ": ports.protocol: Unsupported value: \"" + protocol + "\"");
        }
    }

    private static void workload(String id, JsonNode o, List<String> out) {
        JsonNode spec = o.path("spec");
        if (!o.path("kind").asText().equals("Job") && !o.path("kind").asText().equals("CronJob")) {
            if (!spec.has("selector")) {
                out.add(id + ": spec.selector: Required value");
            } else if (!Manifest.selects(spec.path("selector"), Manifest.podLabels(o))) {
                out.add(id + ": spec.template.metadata.labels: Invalid value: `selector` does not match template `labels`");
            }
        }
        labels(id, "spec.template.metadata.labels", Manifest.podTemplate(o).orElseThrow().path("metadata").path("labels"), out);
        JsonNode strategy = spec.path("strategy");
        if (strategy.path("type").asText("RollingUpdate").equals("Recreate") && strategy.has("rollingUpdate")) {
            out.add(id + ": spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
        }
        JsonNode ru = strategy.path("rollingUpdate");
        if (ru.has("maxSurge") && ru.has("maxUnavailable") && ru.path("maxSurge").asText().matches("0%?") && ru.path("maxUnavailable").asText().matches("0%?")) {
            out.add(id + ": spec.strategy.rollingUpdate.maxUnavailable: Invalid value: may not be 0 when `maxSurge` is 0");
        }
        PodSpec pod = typed(Manifest.podTemplate(o).orElseThrow().path("spec"), PodSpec.class);
        if (pod == null) {
            out.add(id + ": spec.template.spec: cannot be read");
            return;
        }
        if (pod.getContainers() == null || pod.getContainers().isEmpty()) {
            out.add(id + ": spec.template.spec.containers: Required value");
            return;
        }
        Set<String> volumes = new HashSet<>();
        for (Volume v : Objects.requireNonNullElse(pod.getVolumes(), List.<Volume>of())) {
            if (v.getName() == null || !DNS1123_LABEL.matcher(v.getName()).matches()) {
                out.add(id + ": volumes.name: Invalid value \"" + v.getName() + "\"");
            } else if (!volumes.add(v.getName())) {
                out.add(id + ": volumes[" + v.getName() + "]: Duplicate value");
            }
        }
        Set<String> containerNames = new HashSet<>();
        List<Container> all = new ArrayList<>(Objects.requireNonNullElse(pod.getInitContainers(), List.of()));
        all.addAll(pod.getContainers());
        for (Container c : all) {
            String cid = id + ": container \"" + c.getName() + "\"";
            if (c.getName() == null || !DNS1123_LABEL.matcher(c.getName()).matches()) {
                out.add(id + ": containers.name: Invalid value \"" + c.getName() + "\": an RFC 1123 label");
            } else if (!containerNames.add(c.getName())) {
                out.add(cid + ": Duplicate name");
            }
            if (c.getImage() == null || c.getImage().isBlank()) {
                out.add(cid + ": image: Required value");
            }
            Set<String> portNames = new HashSet<>();
            for (ContainerPort p : Objects.requireNonNullElse(c.getPorts(), List.<ContainerPort>of())) {
                if (p.getContainerPort() == null || p.getContainerPort() < 1 || p.getContainerPort() > 65535) {
                    out.add(cid + ": ports.containerPort: Required value (1-65535)");
                }
                if (p.getName() != null && (p.getName().length() > 15 || !IANA_SVC_NAME.matcher(p.getName()).matches())) {
                    out.add(cid + ": ports.name: Invalid value \"" + p.getName() + "\": an IANA_SVC_NAME of at most 15 characters");
                }
                if (p.getName() != null) {
                    portNames.add(p.getName());
                }
            }
            for (EnvVar e : Objects.requireNonNullElse(c.getEnv(), List.<EnvVar>of())) {
                if (e.getName() == null || !ENV_NAME.matcher(e.getName()).matches()) {
                    out.add(cid + ": env.name: Invalid value \"" + e.getName() + "\"");
                }
                if (e.getValueFrom() != null) {
                    var f = e.getValueFrom();
                    long sources = Stream.of(f.getSecretKeyRef(), f.getConfigMapKeyRef(), f.getFieldRef(), f.getResourceFieldRef())
                            .filter(Objects::nonNull).count();
                    if (sources != 1) {
                        out.add(cid + ": env[" + e.getName() + "].valueFrom: Invalid value: must specify exactly one source");
                    }
                    if (e.getValue() != null && !e.getValue().isEmpty()) {
                        out.add(cid + ": env[" + e.getName() + "].valueFrom: may not be specified when `value` is not empty");
                    }
                    if (f.getSecretKeyRef() != null && (isBlank(f.getSecretKeyRef().getName()) || isBlank(f.getSecretKeyRef().getKey()))) {
                        out.add(cid + ": env[" + e.getName() + "].valueFrom.secretKeyRef: name and key: Required value");
                    }
                    if (f.getConfigMapKeyRef() != null && (isBlank(f.getConfigMapKeyRef().getName()) || isBlank(f.getConfigMapKeyRef().getKey()))) {
                        out.add(cid + ": env[" + e.getName() + "].valueFrom.configMapKeyRef: name and key: Required value");
                    }
                }
            }
            for (VolumeMount vm : Objects.requireNonNullElse(c.getVolumeMounts(), List.<VolumeMount>of())) {
                if (isBlank(vm.getMountPath())) {
                    out.add(cid + ": volumeMounts.mountPath: Required value");
                }
                if (!volumes.contains(vm.getName())) {
                    out.add(cid + ": volumeMounts.name: Not found: \"" + vm.getName() + "\"");
                }
            }
            probe(cid, "livenessProbe", c.getLivenessProbe(), portNames, out);
            probe(cid, "readinessProbe", c.getReadinessProbe(), portNames, out);
            probe(cid, "startupProbe", c.getStartupProbe(), portNames, out);
            if (c.getResources() != null && c.getResources().getRequests() != null && c.getResources().getLimits() != null) {
                for (var r : c.getResources().getRequests().entrySet()) {
                    Quantity limit = c.getResources().getLimits().get(r.getKey());
                    if (limit != null && amount(r.getValue()).compareTo(amount(limit)) > 0) {
                        out.add(cid + ": resources.requests[" + r.getKey() + "]: Invalid value: must be less than or equal to the "
                                + r.getKey() + " limit");
                    }
                }
            }
        }
    }

    private static void probe(String cid, String which, Probe p, Set<String> portNames, List<String> out) {
        if (p == null) {
            return;
        }
        long handlers = Stream.of(p.getHttpGet(), p.getTcpSocket(), p.getExec(), p.getGrpc()).filter(Objects::nonNull).count();
        if (handlers != 1) {
            out.add(cid + ": " + which + ": Invalid value: must specify exactly one handler");
        }
        if (p.getHttpGet() != null) {
            var port = p.getHttpGet().getPort();
            if (port == null) {
                out.add(cid + ": " + which + ".httpGet.port: Required value");
            } else if (port.getStrVal() != null && !portNames.contains(port.getStrVal())) {
                out.add(cid + ": " + which + ".httpGet.port: the named port \"" + port.getStrVal() + "\" is not a port of the container");
            }
        }
    }

    private static BigDecimal amount(Quantity q) {
        return Quantity.getAmountInBytes(q);
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}

package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real flows, derived from the services' own configuration, against the NetworkPolicies as the API defines their
 * semantics (a pod selected by no policy of a direction is not isolated in it; otherwise the union of the rules of the
 * policies that select it): every URL a service is given ({@code http://<service>:<port>}), Kafka
 * ({@code KAFKA_BOOTSTRAP_SERVERS}), PostgreSQL (a {@code secretKeyRef} to {@code <cluster>-app}) and DNS must be allowed
 * out of the client and, for pods of the build, into the server. NetworkPolicy <em>enforcement</em> needs a cluster.
 */
final class NetworkFlows {

    private static final Pattern URL = Pattern.compile("https?://([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\\.[a-z0-9.-]+)?:(\\d+)");

    /** One end of a flow: its namespace's labels and its pod's labels, and its container ports by name. */
    record Endpoint(String what, Map<String, String> namespaceLabels, Map<String, String> podLabels, Map<String, Integer> namedPorts) {
    }

    private NetworkFlows() {
    }

    /** The namespace of the build's objects ("default" when none is set). */
    static String namespace(Manifest m) {
        return m.objects().stream().map(o -> o.path("metadata").path("namespace").asText("")).filter(s -> !s.isEmpty()).findFirst().orElse("default");
    }

    static Map<String, String> nsLabels(String ns) {
        return Map.of("kubernetes.io/metadata.name", ns);
    }

    static Endpoint pods(Manifest m, JsonNode workload) {
        Map<String, Integer> named = new LinkedHashMap<>();
        for (JsonNode c : Manifest.podTemplate(workload).orElseThrow().path("spec").path("containers")) {
            c.path("ports").forEach(p -> named.put(p.path("name").asText(), p.path("containerPort").asInt()));
        }
        return new Endpoint(Manifest.id(workload), nsLabels(namespace(m)), Manifest.podLabels(workload), named);
    }

    /** Whether traffic from {@code from} to {@code to} on TCP/UDP {@code port} is allowed in {@code direction}. */
    static boolean allowed(Manifest m, String direction, Endpoint self, Endpoint peer, int port, String protocol) {
        boolean isolated = false;
        for (JsonNode np : m.ofKind("NetworkPolicy")) {
            JsonNode spec = np.path("spec");
            if (!Manifest.selects(spec.path("podSelector"), self.podLabels())) {
                continue;
            }
            List<String> types = new ArrayList<>();
            spec.path("policyTypes").forEach(t -> types.add(t.asText()));
            if (types.isEmpty()) {
                types.add("Ingress");
                if (spec.has("egress")) {
                    types.add("Egress");
                }
            }
            if (!types.contains(direction)) {
                continue;
            }
            isolated = true;
            for (JsonNode rule : spec.path(direction.equals("Egress") ? "egress" : "ingress")) {
                JsonNode peers = rule.path(direction.equals("Egress") ? "to" : "from");
                boolean peerOk = peers.isEmpty();
                for (JsonNode p : peers) {
                    if (p.has("ipBlock")) {
                        continue; // pods of the cluster are not addressed by ipBlock here
                    }
                    boolean nsOk = p.has("namespaceSelector") ? Manifest.selects(p.path("namespaceSelector"), peer.namespaceLabels())
                            : peer.namespaceLabels().equals(nsLabels(namespace(m)));
                    boolean podOk = !p.has("podSelector") || Manifest.selects(p.path("podSelector"), peer.podLabels());
                    peerOk |= nsOk && podOk;
                }
                boolean portOk = rule.path("ports").isEmpty();
                Endpoint server = direction.equals("Egress") ? peer : self;
                for (JsonNode p : rule.path("ports")) {
                    boolean proto = p.path("protocol").asText("TCP").equals(protocol);
                    JsonNode pp = p.path("port");
                    int from = pp.isMissingNode() ? -1 : pp.isTextual() ? server.namedPorts().getOrDefault(pp.asText(), -2) : pp.asInt();
                    int to = p.path("endPort").asInt(from);
                    portOk |= proto && (pp.isMissingNode() || (port >= from && port <= to));
                }
                if (peerOk && portOk) {
                    return true;
                }
            }
        }
        return !isolated;
    }

    /** Every flow the configuration implies is allowed by the policies, out of the client and into pods of the build. */
    static List<String> configuredFlowsAreAllowed(Manifest m) {
        List<String> out = new ArrayList<>();
        Endpoint dns = new Endpoint("kube-dns", nsLabels("kube-system"), Map.of("k8s-app", "kube-dns"), Map.of());
        for (JsonNode w : m.workloads()) {
            Endpoint client = pods(m, w);
            if (Manifest.isAgentSandbox(w)) {
                // a team sandbox calls nothing, DNS included (TeamSandboxPolicy.egressDenied); the tool runner calls its agent
                m.workloadOf("tool-runner-service").ifPresent(runner -> {
                    Endpoint from = pods(m, runner);
                    int agent = client.namedPorts().getOrDefault("agent", -1);
                    String flow = from.what() + " → " + client.what() + " :" + agent + " (port agent)";
                    if (agent < 0) {
                        out.add(client.what() + ": no container port named agent for the tool runner to call");
                    } else if (!allowed(m, "Egress", from, client, agent, "TCP")) {
                        out.add(flow + ": not allowed out of the client");
                    } else if (!allowed(m, "Ingress", client, from, agent, "TCP")) {
                        out.add(flow + ": not allowed into the server");
                    }
                });
                continue;
            }
            if (!allowed(m, "Egress", client, dns, 53, "UDP")) {
                out.add(client.what() + ": DNS (kube-dns in kube-system, UDP 53) is not allowed out");
            }
            Map<String, String> env = CrossReferences.containerEnv(m, w);
            for (var e : env.entrySet()) {
                Matcher u = URL.matcher(e.getValue());
                while (u.find()) {
                    String host = u.group(1);
                    int port = Integer.parseInt(u.group(4));
                    Optional<ObjectNode> svc = m.find("Service", host);
                    if (svc.isEmpty()) {
                        continue; // outside the build (the model endpoint, …): covered by the allowlist policies
                    }
                    for (JsonNode sp : svc.get().path("spec").path("ports")) {
                        if (sp.path("port").asInt() != port) {
                            continue;
                        }
                        Map<String, String> sel = Manifest.strings(svc.get().path("spec").path("selector"));
                        for (JsonNode target : m.workloads()) {
                            if (!sel.entrySet().stream().allMatch(x -> x.getValue().equals(Manifest.podLabels(target).get(x.getKey())))) {
                                continue;
                            }
                            Endpoint server = pods(m, target);
                            JsonNode tp = sp.has("targetPort") ? sp.path("targetPort") : sp.path("port");
                            int targetPort = tp.isTextual() ? server.namedPorts().getOrDefault(tp.asText(), -1) : tp.asInt();
                            String flow = client.what() + " → " + server.what() + " :" + targetPort + " (" + e.getKey() + "=" + e.getValue() + ")";
                            if (!allowed(m, "Egress", client, server, targetPort, "TCP")) {
                                out.add(flow + ": not allowed out of the client");
                            }
                            if (!allowed(m, "Ingress", server, client, targetPort, "TCP")) {
                                out.add(flow + ": not allowed into the server");
                            }
                        }
                    }
                }
            }
            String bootstrap = env.get("KAFKA_BOOTSTRAP_SERVERS");
            if (bootstrap != null) {
                for (JsonNode k : m.ofKind("Kafka")) {
                    String name = Manifest.nameOf(k);
                    for (String server : bootstrap.split(",")) {
                        if (!server.trim().startsWith(name + "-kafka-bootstrap")) {
                            continue;
                        }
                        int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1).trim());
                        // the labels Strimzi puts on broker pods (Strimzi 1.2 docs, "Kafka pod labels")
                        Endpoint broker = new Endpoint(name + " brokers", nsLabels(namespace(m)),
                                Map.of("strimzi.io/cluster", name, "strimzi.io/kind", "Kafka", "strimzi.io/name", name + "-kafka",
                                        "strimzi.io/broker-role", "true"), Map.of());
                        if (!allowed(m, "Egress", client, broker, port, "TCP")) {
                            out.add(client.what() + " → Kafka " + name + " :" + port + ": not allowed out of the client");
                        }
                    }
                }
            }
            for (JsonNode c : Manifest.containers(w)) {
                for (JsonNode e : c.path("env")) {
                    String secret = e.path("valueFrom").path("secretKeyRef").path("name").asText();
                    for (JsonNode cl : m.ofKind("Cluster")) {
                        if (!secret.equals(Manifest.nameOf(cl) + "-app")) {
                            continue;
                        }
                        // the labels CloudNativePG puts on instance pods (CNPG 1.30 docs, "Labels and annotations")
                        Endpoint pg = new Endpoint("PostgreSQL " + Manifest.nameOf(cl), nsLabels(namespace(m)),
                                Map.of("cnpg.io/cluster", Manifest.nameOf(cl), "cnpg.io/podRole", "instance", "cnpg.io/instanceRole", "primary",
                                        "role", "primary"), Map.of());
                        String flow = client.what() + " → PostgreSQL " + Manifest.nameOf(cl) + " :5432";
                        if (!allowed(m, "Egress", client, pg, 5432, "TCP") && !out.contains(flow + ": not allowed out of the client")) {
                            out.add(flow + ": not allowed out of the client");
                        }
                        if (!allowed(m, "Ingress", pg, client, 5432, "TCP") && !out.contains(flow + ": not allowed into the database pods")) {
                            out.add(flow + ": not allowed into the database pods");
                        }
                    }
                }
            }
        }
        return out;
    }
}

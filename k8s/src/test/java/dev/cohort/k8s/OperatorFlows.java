package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The traffic the operators' own pods need, which no manifest of ours names as a URL: CloudNativePG's instance
 * manager and Strimzi's entity operator call the Kubernetes API server, and CNPG instances check each other's
 * instance manager (port 8000) when the API server cannot be reached, before a failover.
 */
final class OperatorFlows {

    /** RFC 5737 documentation ranges: an address in one is a placeholder that no cluster uses. */
    static final List<String> DOCUMENTATION_RANGES = List.of("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24");
    /** The ports the API server answers on: the {@code kubernetes} Service's 443 and the usual endpoint port 6443. */
    static final List<Integer> APISERVER_PORTS = List.of(443, 6443);
    /** CloudNativePG's instance manager (status, peer checks) and PostgreSQL. */
    static final int CNPG_STATUS_PORT = 8000;
    static final int POSTGRES_PORT = 5432;

    private OperatorFlows() {
    }

    /** The operand pods that must reach the API server, each with its labels as the operator sets them. */
    static List<NetworkFlows.Endpoint> operandsOfTheApiServer(Manifest m) {
        Map<String, String> ns = NetworkFlows.nsLabels(NetworkFlows.namespace(m));
        List<NetworkFlows.Endpoint> out = new ArrayList<>();
        for (JsonNode c : m.ofKind("Cluster")) {
            String name = Manifest.nameOf(c);
            out.add(new NetworkFlows.Endpoint(Manifest.id(c) + " (CloudNativePG instance manager)", ns,
                    Map.of("cnpg.io/cluster", name, "cnpg.io/podRole", "instance"), Map.of()));
        }
        for (JsonNode k : m.ofKind("Kafka")) {
            if (k.path("spec").has("entityOperator")) {
                String name = Manifest.nameOf(k);
                out.add(new NetworkFlows.Endpoint(Manifest.id(k) + " (Strimzi entity operator)", ns,
                        Map.of("strimzi.io/cluster", name, "strimzi.io/kind", "Kafka", "strimzi.io/name", name + "-entity-operator"),
                        Map.of()));
            }
        }
        return out;
    }

    /**
     * Every operand pod that an egress policy isolates may reach the API server through an {@code ipBlock} on 443 or
     * 6443 whose address is not a documentation placeholder.
     */
    static List<String> operandsReachTheApiServer(Manifest m) {
        List<String> out = new ArrayList<>();
        for (NetworkFlows.Endpoint e : operandsOfTheApiServer(m)) {
            boolean isolated = false;
            List<String> blocks = new ArrayList<>();
            List<String> placeholders = new ArrayList<>();
            for (JsonNode np : m.ofKind("NetworkPolicy")) {
                JsonNode spec = np.path("spec");
                if (!Manifest.selects(spec.path("podSelector"), e.podLabels()) || !policyTypes(spec).contains("Egress")) {
                    continue;
                }
                isolated = true;
                for (JsonNode rule : spec.path("egress")) {
                    if (!allowsAnApiServerPort(rule)) {
                        continue;
                    }
                    for (JsonNode peer : rule.path("to")) {
                        String cidr = peer.path("ipBlock").path("cidr").asText("");
                        if (cidr.isEmpty()) {
                            continue;
                        }
                        if (DOCUMENTATION_RANGES.stream().anyMatch(r -> Cidr.contains(r, cidr))) {
                            placeholders.add(Manifest.id(np) + " " + cidr);
                        } else {
                            blocks.add(cidr);
                        }
                    }
                }
            }
            if (isolated && blocks.isEmpty()) {
                out.add(e.what() + ": its pods cannot reach the Kubernetes API server (TCP " + APISERVER_PORTS + " to an ipBlock)"
                        + (placeholders.isEmpty() ? "" : "; " + placeholders + " is a documentation address (RFC 5737)"
                                + " that matches no cluster: set apiserver-cidr in the overlay's cluster.env"));
            }
        }
        return out;
    }

    /**
     * The instances of every CNPG Cluster reach each other on the instance manager's port (peer checks when the API
     * server is unreachable) and on PostgreSQL's (streaming replication), out of one and into the other.
     */
    static List<String> postgresInstancesReachEachOther(Manifest m) {
        List<String> out = new ArrayList<>();
        Map<String, String> ns = NetworkFlows.nsLabels(NetworkFlows.namespace(m));
        for (JsonNode c : m.ofKind("Cluster")) {
            String name = Manifest.nameOf(c);
            var instance = new NetworkFlows.Endpoint(Manifest.id(c), ns, Map.of("cnpg.io/cluster", name, "cnpg.io/podRole", "instance"),
                    Map.of("postgresql", POSTGRES_PORT, "status", CNPG_STATUS_PORT));
            for (int port : List.of(POSTGRES_PORT, CNPG_STATUS_PORT)) {
                if (!NetworkFlows.allowed(m, "Egress", instance, instance, port, "TCP")) {
                    out.add(Manifest.id(c) + ": instance → instance :" + port + " is not allowed out of the instances");
                }
                if (!NetworkFlows.allowed(m, "Ingress", instance, instance, port, "TCP")) {
                    out.add(Manifest.id(c) + ": instance → instance :" + port + " is not allowed into the instances");
                }
            }
        }
        return out;
    }

    private static List<String> policyTypes(JsonNode spec) {
        List<String> types = new ArrayList<>();
        spec.path("policyTypes").forEach(t -> types.add(t.asText()));
        if (types.isEmpty()) {
            types.add("Ingress");
            if (spec.has("egress")) {
                types.add("Egress");
            }
        }
        return types;
    }

    private static boolean allowsAnApiServerPort(JsonNode rule) {
        if (rule.path("ports").isEmpty()) {
            return true;
        }
        for (JsonNode p : rule.path("ports")) {
            if (!p.path("protocol").asText("TCP").equals("TCP")) {
                continue;
            }
            int from = p.path("port").asInt(-1);
            int to = p.path("endPort").asInt(from);
            if (p.path("port").isMissingNode() || APISERVER_PORTS.stream().anyMatch(x -> x >= from && x <= to)) {
                return true;
            }
        }
        return false;
    }
}

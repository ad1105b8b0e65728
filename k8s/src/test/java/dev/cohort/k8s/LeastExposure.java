package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Least exposure beyond the pod's own hardening: where images come from, and what the operators' budgets allow. */
final class LeastExposure {

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
}

package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One kustomize build: its objects (as YAML trees, exactly as kubectl printed them) and the Secrets an operator is
 * told to create by hand (the {@code kubectl create secret} lines of the README next to it).
 *
 * @param name what the build is called in messages ({@code overlays/prod}, {@code broken/...})
 * @param objects the built objects
 * @param handMadeSecrets Secret name → keys, from the README's {@code kubectl create secret generic} commands
 */
record Manifest(String name, List<ObjectNode> objects, Map<String, Set<String>> handMadeSecrets) {

    static final ObjectMapper YAML = new YAMLMapper();

    /** Keys of the Secret {@code <cluster>-app} CloudNativePG generates for an application owner (CNPG 1.30 docs). */
    static final Set<String> CNPG_APP_SECRET_KEYS = Set.of("username", "user", "password", "dbname", "host", "port", "uri",
            "jdbc-uri", "pgpass", "fqdn-uri", "fqdn-jdbc-uri");

    private static final Map<Path, Manifest> CACHE = new ConcurrentHashMap<>();
    private static final Pattern CREATE_SECRET = Pattern.compile("kubectl\\s+(?:-n\\s+\\S+\\s+)?create\\s+secret\\s+generic\\s+([a-z0-9.-]+)([^\\n]*)");
    private static final Pattern FROM_KEY = Pattern.compile("--from-(?:literal|file)=([A-Za-z0-9._-]+)=");

    /** The repository root (the surefire property {@code cohort.repo}, else the parent of the working directory). */
    static Path repo() {
        String p = System.getProperty("cohort.repo");
        return (p != null ? Path.of(p) : Path.of("").toAbsolutePath().getParent()).normalize();
    }

    /** {@code k8s/} of the repository. */
    static Path k8sDir() {
        return repo().resolve("k8s");
    }

    /** The test resources folder (fixture/, broken/, crds/). */
    static Path testResources() {
        return k8sDir().resolve("src/test/resources");
    }

    /**
     * The values a cluster's operator writes into each overlay's {@code cluster.env} (git-ignored, required by the
     * overlays' kustomizations): here an address that looks like an API server endpoint, not a placeholder, and a
     * registry of the deployer's own, and (prod) the object store of PostgreSQL's backups.
     */
    static final String TEST_CLUSTER_ENV = "apiserver-cidr=10.0.0.1/32\nimage-registry=registry.example.com/cohort\n"
            + "backup-destination-path=s3://cohort-test-backups/prod\n";

    private static volatile Path staged;

    /**
     * Builds {@code dir} with kustomize once per JVM; the README is the nearest one above {@code dir}. A directory of
     * {@code k8s/} is built in a copy of {@code k8s/} whose overlays have {@link #TEST_CLUSTER_ENV} as their
     * {@code cluster.env}, so the build neither needs nor reads a developer's own cluster values.
     */
    static Manifest of(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        return CACHE.computeIfAbsent(abs, d -> parse(nameOf(d), Kubectl.kustomize(inStagedCopy(d)), readmeFor(d)));
    }

    /** Where {@code dir} (a directory of k8s/) is in the staged copy; other directories are built in place. */
    static Path inStagedCopy(Path dir) {
        Path k8s = k8sDir().toAbsolutePath().normalize();
        if (!dir.startsWith(k8s)) {
            return dir;
        }
        if (staged == null) {
            synchronized (Manifest.class) {
                if (staged == null) {
                    staged = copyOfK8s(TEST_CLUSTER_ENV);
                }
            }
        }
        return staged.resolve(k8s.relativize(dir).toString());
    }

    /**
     * A copy of k8s/ (manifests and test resources, not target/ or the Java sources) in a temporary directory, with
     * {@code clusterEnv} as every overlay's {@code cluster.env}, or with none when it is null.
     */
    static Path copyOfK8s(String clusterEnv) {
        Path k8s = k8sDir().toAbsolutePath().normalize();
        try {
            Path root = Files.createTempDirectory("cohort-k8s-");
            try (Stream<Path> all = Files.walk(k8s)) {
                for (Path p : all.toList()) {
                    Path rel = k8s.relativize(p);
                    if (rel.startsWith("target") || rel.startsWith("src/test/java") || rel.toString().endsWith("cluster.env")) {
                        continue;
                    }
                    Path to = root.resolve(rel.toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(p, to);
                    }
                }
            }
            if (clusterEnv != null) {
                try (Stream<Path> overlays = Files.list(root.resolve("overlays"))) {
                    for (Path o : overlays.filter(Files::isDirectory).toList()) {
                        Files.writeString(o.resolve("cluster.env"), clusterEnv);
                    }
                }
            }
            deleteOnExit(root);
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + k8s, e);
        }
    }

    private static void deleteOnExit(Path root) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (Stream<Path> s = Files.walk(root)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory; the OS cleans /tmp
            }
        }, "delete-" + root.getFileName()));
    }

    /** Parses built YAML (several documents). */
    static Manifest parse(String name, String yaml, Optional<Path> readme) {
        List<ObjectNode> objects = new ArrayList<>();
        try (var parser = new YAMLFactory().createParser(yaml)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n instanceof ObjectNode o && !o.isEmpty()) {
                    objects.add(o);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse the build of " + name, e);
        }
        return new Manifest(name, List.copyOf(objects), readme.map(Manifest::secretsInReadme).orElse(Map.of()));
    }

    /** Secret name → keys from every {@code kubectl create secret generic NAME --from-literal=KEY=...} (continued lines joined). */
    static Map<String, Set<String>> secretsInReadme(Path readme) {
        String text;
        try {
            text = Files.readString(readme).replaceAll("\\\\\\r?\\n", " ");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Set<String>> out = new LinkedHashMap<>();
        Matcher m = CREATE_SECRET.matcher(text);
        while (m.find()) {
            Set<String> keys = out.computeIfAbsent(m.group(1), k -> new LinkedHashSet<>());
            Matcher k = FROM_KEY.matcher(m.group(2));
            while (k.find()) {
                keys.add(k.group(1));
            }
        }
        return out;
    }

    private static Optional<Path> readmeFor(Path dir) {
        // broken fixtures are the fixture plus one defect: they share its README unless they have their own
        Path d = dir;
        for (int i = 0; i < 4 && d != null; i++, d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("README.md"))) {
                return Optional.of(d.resolve("README.md"));
            }
            if (d.getFileName() != null && d.getFileName().toString().equals("broken")) {
                return Optional.of(d.resolveSibling("fixture").resolve("README.md"));
            }
        }
        return Optional.empty();
    }

    private static String nameOf(Path dir) {
        Path k8s = k8sDir().toAbsolutePath().normalize();
        Path res = testResources().toAbsolutePath().normalize();
        return dir.startsWith(res) ? res.relativize(dir).toString() : dir.startsWith(k8s) ? k8s.relativize(dir).toString() : dir.toString();
    }

    /** Every overlay under {@code k8s/overlays}. */
    static List<Path> overlays() {
        Path o = k8sDir().resolve("overlays");
        if (!Files.isDirectory(o)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(o)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("kustomization.yaml"))).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- reading objects

    /** Objects of a kind (any apiVersion). */
    List<ObjectNode> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    }

    /** The object of a kind and name, if any. */
    Optional<ObjectNode> find(String kind, String name) {
        return ofKind(kind).stream().filter(o -> name.equals(nameOf(o))).findFirst();
    }

    /** {@code metadata.name}. */
    static String nameOf(JsonNode o) {
        return o.path("metadata").path("name").asText();
    }

    /** {@code Kind/name}, how messages name an object. */
    static String id(JsonNode o) {
        return o.path("kind").asText() + "/" + nameOf(o);
    }

    /** Workloads with a pod template: Deployment, StatefulSet, DaemonSet, Job, CronJob, agent-sandbox's SandboxTemplate and Sandbox. */
    List<ObjectNode> workloads() {
        return objects.stream().filter(o -> podTemplate(o).isPresent()).toList();
    }

    /** The pod template of a workload. */
    static Optional<JsonNode> podTemplate(JsonNode o) {
        return switch (o.path("kind").asText()) {
            case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job" -> Optional.of(o.path("spec").path("template"));
            case "CronJob" -> Optional.of(o.path("spec").path("jobTemplate").path("spec").path("template"));
            // agent-sandbox (components/agent-sandbox): the pod of every Sandbox made from the template
            case "SandboxTemplate", "Sandbox" -> isAgentSandbox(o) ? Optional.of(o.path("spec").path("podTemplate")) : Optional.empty();
            default -> Optional.empty();
        };
    }

    /** Whether an object is agent-sandbox's ({@code agents.x-k8s.io}: Sandbox; {@code extensions.agents.x-k8s.io}: the rest). */
    static boolean isAgentSandbox(JsonNode o) {
        String api = o.path("apiVersion").asText();
        return api.startsWith("agents.x-k8s.io/") || api.startsWith("extensions.agents.x-k8s.io/");
    }

    /** Containers and init containers of a workload. */
    static List<JsonNode> containers(JsonNode workload) {
        JsonNode spec = podTemplate(workload).orElseThrow().path("spec");
        List<JsonNode> out = new ArrayList<>();
        spec.path("initContainers").forEach(out::add);
        spec.path("containers").forEach(out::add);
        return out;
    }

    /** The workload whose pods carry {@code app.kubernetes.io/name = app}. */
    Optional<ObjectNode> workloadOf(String app) {
        return workloads().stream().filter(w -> app.equals(podLabels(w).get("app.kubernetes.io/name"))).findFirst();
    }

    /** The labels of a workload's pods. */
    static Map<String, String> podLabels(JsonNode workload) {
        return strings(podTemplate(workload).orElseThrow().path("metadata").path("labels"));
    }

    /** A JSON object of strings as a map. */
    static Map<String, String> strings(JsonNode n) {
        Map<String, String> m = new LinkedHashMap<>();
        n.properties().forEach(e -> m.put(e.getKey(), e.getValue().asText()));
        return m;
    }

    /** Whether a LabelSelector ({@code matchLabels} + {@code matchExpressions}) selects {@code labels}. */
    static boolean selects(JsonNode selector, Map<String, String> labels) {
        for (var e : strings(selector.path("matchLabels")).entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (JsonNode x : selector.path("matchExpressions")) {
            String key = x.path("key").asText();
            Set<String> values = new LinkedHashSet<>();
            x.path("values").forEach(v -> values.add(v.asText()));
            boolean ok = switch (x.path("operator").asText()) {
                case "In" -> labels.containsKey(key) && values.contains(labels.get(key));
                case "NotIn" -> !labels.containsKey(key) || !values.contains(labels.get(key));
                case "Exists" -> labels.containsKey(key);
                case "DoesNotExist" -> !labels.containsKey(key);
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Replicas of a workload (1 when unset, as the API server defaults it). */
    static int replicas(JsonNode workload) {
        return workload.path("spec").path("replicas").asInt(1);
    }

    @Override
    public String toString() {
        return name;
    }
}

package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.function.Function;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The JVM command line the services' image (ubi9 {@code openjdk-21-runtime}, {@code src/main/docker/Dockerfile.jvm})
 * composes from a container's env, and the checks on it that a schema cannot make.
 *
 * <p>A model of the image's {@code /opt/jboss/container/java/run/run-java.sh} and {@code java-default-options} (the
 * {@code rh-openjdk/redhat-openjdk-containers} modules {@code run} and {@code jvm}):
 * <ol>
 * <li>{@code JAVA_OPTS}, when set (even empty), is the whole option list and nothing below is added;</li>
 * <li>otherwise: {@code -XX:MaxRAMPercentage=<JAVA_MAX_MEM_RATIO, default 80>.0} (none when the ratio is 0), then
 * {@code GC_CONTAINER_OPTIONS} (default {@code -XX:+UseParallelGC}), {@code -XX:MinHeapFreeRatio=10
 * -XX:MaxHeapFreeRatio=20 -XX:GCTimeRatio=4 -XX:AdaptiveSizePolicyWeight=90} (each overridable by its
 * {@code GC_*} variable), {@code -XX:MaxMetaspaceSize=<GC_MAX_METASPACE_SIZE>m} and {@code -XX:MetaspaceSize=…m} when
 * set, the diagnostics options when {@code JAVA_DIAGNOSTICS} is set, {@code -XX:+ExitOnOutOfMemoryError}, and last
 * {@code JAVA_OPTS_APPEND};</li>
 * <li>then {@code exec java <options> -cp . -jar $JAVA_APP_JAR} in {@code /deployments}.</li>
 * </ol>
 * Not modelled: {@code JAVA_DEBUG} and the proxy variables (the manifests set neither; {@link #unmodelled} reports
 * them), {@code run-env.sh} files (the image has none).
 */
final class RunJava {

    /** The collector the image selects when {@code GC_CONTAINER_OPTIONS} is unset. */
    static final String IMAGE_DEFAULT_COLLECTOR = "-XX:+UseParallelGC";
    /** Where the image's Dockerfile puts the application and where run-java.sh starts it. */
    static final String APP_DIR = "/deployments";

    /** The JVM options that select a collector; more than one and HotSpot exits with "Multiple garbage collectors selected". */
    static final Pattern COLLECTOR = Pattern.compile("-XX:\\+Use(Serial|Parallel|ParallelOld|G1|Z|Shenandoah|Epsilon|ConcMarkSweep)GC");

    private static final List<String> UNMODELLED = List.of("JAVA_DEBUG", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy");

    private RunJava() {
    }

    /** The JVM options run-java.sh passes for this env, in order. */
    static List<String> options(Map<String, String> env) {
        if (env.containsKey("JAVA_OPTS")) {
            return split(env.get("JAVA_OPTS"));
        }
        List<String> out = new ArrayList<>();
        String ratio = env.getOrDefault("JAVA_MAX_MEM_RATIO", "");
        if (ratio.isEmpty()) {
            out.add("-XX:MaxRAMPercentage=80.0");
        } else if (!ratio.equals("0")) {
            out.add("-XX:MaxRAMPercentage=" + Math.round(Double.parseDouble(ratio)) + ".0");
        }
        out.addAll(split(orDefault(env, "GC_CONTAINER_OPTIONS", IMAGE_DEFAULT_COLLECTOR)));
        out.add("-XX:MinHeapFreeRatio=" + orDefault(env, "GC_MIN_HEAP_FREE_RATIO", "10"));
        out.add("-XX:MaxHeapFreeRatio=" + orDefault(env, "GC_MAX_HEAP_FREE_RATIO", "20"));
        out.add("-XX:GCTimeRatio=" + orDefault(env, "GC_TIME_RATIO", "4"));
        out.add("-XX:AdaptiveSizePolicyWeight=" + orDefault(env, "GC_ADAPTIVE_SIZE_POLICY_WEIGHT", "90"));
        String maxMeta = env.getOrDefault("GC_MAX_METASPACE_SIZE", "");
        if (!maxMeta.isEmpty()) {
            out.add("-XX:MaxMetaspaceSize=" + maxMeta + "m");
        }
        String meta = env.getOrDefault("GC_METASPACE_SIZE", "");
        if (!meta.isEmpty()) {
            long m = Long.parseLong(meta);
            // the script clamps the initial size to the maximum
            out.add("-XX:MetaspaceSize=" + (maxMeta.isEmpty() ? m : Math.min(m, Long.parseLong(maxMeta))) + "m");
        }
        if (!env.getOrDefault("JAVA_DIAGNOSTICS", "").isEmpty()) {
            out.add("-Xlog:gc::utctime");
            out.add("-XX:NativeMemoryTracking=summary");
        }
        out.add("-XX:+ExitOnOutOfMemoryError");
        out.addAll(split(env.getOrDefault("JAVA_OPTS_APPEND", "")));
        return out;
    }

    /** The options of {@code options} that select a collector. */
    static List<String> collectors(List<String> options) {
        return options.stream().filter(o -> COLLECTOR.matcher(o).matches()).toList();
    }

    /** Image variables this model does not follow, set in {@code env}. */
    static List<String> unmodelled(Map<String, String> env) {
        return UNMODELLED.stream().filter(env::containsKey).toList();
    }

    /**
     * The env of a container as the kubelet gives it, as far as the build says: every key of its {@code envFrom}
     * ConfigMaps, then its {@code env} (later wins); a {@code valueFrom} other than a ConfigMap key resolves through
     * {@code valueFrom} (Secrets, field refs), a missing ConfigMap key to nothing.
     */
    static Map<String, String> containerEnv(Manifest m, JsonNode container, Function<JsonNode, Optional<String>> valueFrom) {
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode from : container.path("envFrom")) {
            String cm = from.path("configMapRef").path("name").asText("");
            if (!cm.isEmpty()) {
                m.find("ConfigMap", cm).ifPresent(o -> env.putAll(Manifest.strings(o.path("data"))));
            }
        }
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asText();
            if (e.has("value")) {
                env.put(name, e.path("value").asText());
            } else if (e.path("valueFrom").has("configMapKeyRef")) {
                JsonNode ref = e.path("valueFrom").path("configMapKeyRef");
                m.find("ConfigMap", ref.path("name").asText()).map(o -> o.path("data").path(ref.path("key").asText()))
                        .filter(JsonNode::isTextual).ifPresent(v -> env.put(name, v.asText()));
            } else {
                valueFrom.apply(e.path("valueFrom")).ifPresent(v -> env.put(name, v));
            }
        }
        return env;
    }

    /**
     * The containers that run the image's run-java.sh: those whose image's last path segment (without tag or digest)
     * is a service module with a {@code src/main/docker/Dockerfile.jvm}, whatever registry it is pulled from.
     */
    static boolean runsRunJava(JsonNode container) {
        return serviceOf(container).isPresent();
    }

    /** The service module a container's image is built from, if it is one of ours. */
    static Optional<String> serviceOf(JsonNode container) {
        String image = container.path("image").asText();
        String last = image.substring(image.lastIndexOf('/') + 1).replaceAll("[:@].*$", "");
        return last.matches("[a-z][a-z0-9-]*-service")
                && Files.isRegularFile(Manifest.repo().resolve(last).resolve("src/main/docker/Dockerfile.jvm"))
                ? Optional.of(last) : Optional.empty();
    }

    /**
     * Every Cohort container's composed command line selects exactly one collector (HotSpot refuses two: "Multiple
     * garbage collectors selected"), and uses no image variable this model does not follow.
     */
    static List<String> oneCollector(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                if (!runsRunJava(c)) {
                    continue;
                }
                Map<String, String> env = containerEnv(m, c, v -> Optional.of("secret"));
                List<String> opts = options(env);
                List<String> gcs = collectors(opts);
                String where = Manifest.id(w) + " container " + c.path("name").asText();
                if (gcs.size() != 1) {
                    out.add(where + ": run-java.sh would start java with " + gcs.size() + " collectors " + gcs
                            + " (a collector goes in GC_CONTAINER_OPTIONS, which replaces the image's default "
                            + IMAGE_DEFAULT_COLLECTOR + "; JVM options: " + String.join(" ", opts) + ")");
                }
                for (String v : unmodelled(env)) {
                    out.add(where + ": sets " + v + ", which the run-java.sh model of these checks does not follow");
                }
            }
        }
        return out;
    }

    private static String orDefault(Map<String, String> env, String key, String dflt) {
        String v = env.get(key);
        return v == null || v.isEmpty() ? dflt : v;
    }

    private static List<String> split(String s) {
        String t = s.strip();
        return t.isEmpty() ? List.of() : List.of(t.split("\\s+"));
    }
}

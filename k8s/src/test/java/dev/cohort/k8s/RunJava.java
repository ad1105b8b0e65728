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
 * The JVM command line the services' image (ubi9 {@code openjdk-25-runtime}, {@code src/main/docker/Dockerfile.jvm})
 * composes from a container's env, and the checks on it that a schema cannot make.
 *
 * <p>A model of the image's {@code /opt/jboss/container/java/run/run-java.sh} and {@code java-default-options} (the
 * {@code rh-openjdk/redhat-openjdk-containers} modules {@code run}, {@code jvm} and, for JDK 25, {@code jre/25}):
 * <ol>
 * <li>{@code JAVA_OPTS}, when set (even empty), is the whole option list and nothing below is added;</li>
 * <li>otherwise: {@code -XX:MaxRAMPercentage=<JAVA_MAX_MEM_RATIO, default 80>.0} (none when the ratio is 0), then
 * {@code GC_CONTAINER_OPTIONS} (default {@code -XX:+UseParallelGC}), {@code -XX:MinHeapFreeRatio=10
 * -XX:MaxHeapFreeRatio=20 -XX:GCTimeRatio=4 -XX:AdaptiveSizePolicyWeight=90} (each overridable by its
 * {@code GC_*} variable), {@code -XX:MaxMetaspaceSize=<GC_MAX_METASPACE_SIZE>m} and {@code -XX:MetaspaceSize=…m} when
 * set, the diagnostics options when {@code JAVA_DIAGNOSTICS} is set, {@code -XX:+ExitOnOutOfMemoryError},
 * {@code -XX:+UseCompactObjectHeaders} unless {@code JAVA_COMPACT_OBJECT_HEADERS=false} (module {@code jre/25}),
 * and last {@code JAVA_OPTS_APPEND};</li>
 * <li>then {@code exec java <options> -cp . -jar $JAVA_APP_JAR} in {@code /deployments}.</li>
 * </ol>
 * The env is the image's ({@code ENV} of its Dockerfile) overlaid by the container's ({@link #podEnv}).
 * Not modelled: {@code JAVA_DEBUG} and the proxy variables (the manifests set neither; {@link #unmodelled} reports
 * them), {@code run-env.sh} files (the image has none).
 *
 * <p>The image trains a start-up cache in its build ({@link Dockerfile#trainings}) and passes it with
 * {@code -XX:AOTCache}; {@link #usesTheImageAotCache} checks that every pod still does after its ConfigMap replaced
 * {@code JAVA_OPTS_APPEND}, with none of the options the JVM compares against the cache changed.
 */
final class RunJava {

    /** The base image of the services' JVM images, which this class models (its tag follows a colon). */
    static final String IMAGE = "registry.access.redhat.com/ubi9/openjdk-25-runtime";
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
        if (!"false".equals(env.get("JAVA_COMPACT_OBJECT_HEADERS"))) {
            out.add("-XX:+UseCompactObjectHeaders");
        }
        out.addAll(split(env.getOrDefault("JAVA_OPTS_APPEND", "")));
        return out;
    }

    /** The {@code -XX:AOTCache} values among the options, in order (the JVM takes the last). */
    static List<String> aotCaches(List<String> options) {
        return options.stream().filter(o -> o.startsWith("-XX:AOTCache=")).map(o -> o.substring("-XX:AOTCache=".length())).toList();
    }

    /** The last {@code -XX:AOTMode}, if any (the JVM's default is {@code auto}: without a usable cache it starts without one). */
    static Optional<String> aotMode(List<String> options) {
        return options.stream().filter(o -> o.startsWith("-XX:AOTMode=")).map(o -> o.substring("-XX:AOTMode=".length()))
                .reduce((a, b) -> b);
    }

    /**
     * The options the JVM compares against an AOT cache, where a start with {@code run} differs from the training
     * with {@code trained}: a difference makes the JVM refuse the cache (it reports it and starts without). Compact
     * object headers, compressed oops (off from a 32 GB heap on) and compressed class pointers must match; the
     * collector and a heap size below 32 GB may differ (measured on JDK 25).
     */
    static List<String> aotCacheMismatches(List<String> trained, List<String> run) {
        List<String> out = new ArrayList<>();
        Map<String, Function<List<String>, Boolean>> settings = new LinkedHashMap<>();
        settings.put("UseCompactObjectHeaders", o -> flag(o, "UseCompactObjectHeaders").orElse(false));
        settings.put("UseCompressedOops", o -> flag(o, "UseCompressedOops").orElse(maxHeapBytes(o).map(b -> b < COMPRESSED_OOPS_LIMIT).orElse(true)));
        settings.put("UseCompressedClassPointers", o -> flag(o, "UseCompressedClassPointers").orElse(true));
        settings.forEach((name, value) -> {
            boolean t = value.apply(trained);
            boolean r = value.apply(run);
            if (t != r) {
                out.add(name + " is " + r + " at start but was " + t + " when the cache was trained");
            }
        });
        return out;
    }

    /** From this maximum heap on, HotSpot turns compressed oops off. */
    private static final long COMPRESSED_OOPS_LIMIT = 32L * 1024 * 1024 * 1024;

    /** The last {@code -XX:+Name} / {@code -XX:-Name}, if any. */
    private static Optional<Boolean> flag(List<String> options, String name) {
        Boolean v = null;
        for (String o : options) {
            if (o.equals("-XX:+" + name)) {
                v = true;
            } else if (o.equals("-XX:-" + name)) {
                v = false;
            }
        }
        return Optional.ofNullable(v);
    }

    /** The last {@code -Xmx} / {@code -XX:MaxHeapSize}, in bytes, if any. */
    private static Optional<Long> maxHeapBytes(List<String> options) {
        Long v = null;
        for (String o : options) {
            String size = o.startsWith("-Xmx") ? o.substring(4) : o.startsWith("-XX:MaxHeapSize=") ? o.substring(16) : null;
            if (size != null) {
                var m = Pattern.compile("(?i)(\\d+)([kmgt]?)").matcher(size);
                if (m.matches()) {
                    long n = Long.parseLong(m.group(1));
                    v = n << switch (m.group(2).toLowerCase()) {
                        case "k" -> 10;
                        case "m" -> 20;
                        case "g" -> 30;
                        case "t" -> 40;
                        default -> 0;
                    };
                }
            }
        }
        return Optional.ofNullable(v);
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
     * What run-java.sh sees in the container: the image's env (the final {@code ENV} of the service's Dockerfile, e.g.
     * its default {@code JAVA_OPTS_APPEND}), overlaid by the container's ({@link #containerEnv}).
     */
    static Map<String, String> podEnv(Manifest m, JsonNode container, Function<JsonNode, Optional<String>> valueFrom) {
        Map<String, String> env = new LinkedHashMap<>();
        serviceOf(container).ifPresent(s -> env.putAll(Dockerfile.of(s).env()));
        env.putAll(containerEnv(m, container, valueFrom));
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
                Map<String, String> env = podEnv(m, c, v -> Optional.of("secret"));
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

    /**
     * Every Cohort container starts from the AOT cache its image trained: its command line (the image's env, then the
     * container's: a ConfigMap's {@code JAVA_OPTS_APPEND} replaces the image's) passes {@code -XX:AOTCache} with the
     * file the Dockerfile trains, in the default mode (auto: a cache that does not fit is reported and skipped, never
     * a failed start), with none of the options the JVM compares against the cache changed from the training's.
     */
    static List<String> usesTheImageAotCache(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.containers(w)) {
                Optional<String> service = serviceOf(c);
                if (service.isEmpty()) {
                    continue;
                }
                String where = Manifest.id(w) + " container " + c.path("name").asText();
                List<Dockerfile.Training> trainings = Dockerfile.of(service.get()).trainings();
                if (trainings.isEmpty()) {
                    out.add(where + ": its image (" + service.get() + "/src/main/docker/Dockerfile.jvm) trains no AOT cache");
                    continue;
                }
                Dockerfile.Training t = trainings.getLast();
                List<String> opts = options(podEnv(m, c, v -> Optional.of("secret")));
                List<String> caches = aotCaches(opts);
                if (caches.isEmpty()) {
                    out.add(where + ": does not use its image's AOT cache: no -XX:AOTCache=" + t.cacheOutput()
                            + " (a ConfigMap's JAVA_OPTS_APPEND replaces the image's: keep the flag there; JVM options: "
                            + String.join(" ", opts) + ")");
                } else if (!caches.getLast().equals(t.cacheOutput())) {
                    out.add(where + ": -XX:AOTCache=" + caches.getLast() + ", but its image trains " + t.cacheOutput());
                }
                aotMode(opts).filter(mode -> !mode.equals("auto")).ifPresent(mode -> out.add(where + ": -XX:AOTMode=" + mode
                        + " (the default, auto, starts without a cache that does not fit; on would stop the pod)"));
                for (String mismatch : aotCacheMismatches(Dockerfile.trainingOptions(t), opts)) {
                    out.add(where + ": the JVM would refuse its image's AOT cache: " + mismatch);
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

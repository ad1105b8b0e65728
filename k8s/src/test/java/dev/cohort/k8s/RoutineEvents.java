package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What keeps the deployment up through routine events — a node drained or lost, a rolling restart, the database
 * starting late, a metric not scraped — as far as the manifests decide it.
 */
final class RoutineEvents {

    /** A startup probe must leave the JVM this long to boot besides waiting for the database (Quarkus on a busy node). */
    static final Duration BOOT_MARGIN = Duration.ofSeconds(60);
    /** The database outage a starting service should outlast without exiting: a CNPG switchover or a restart. */
    static final Duration MIN_DATABASE_WAIT = Duration.ofSeconds(60);
    /** Time the application itself needs after SIGTERM, on top of the preStop delay (the hand-over is 5 s). */
    static final int SHUTDOWN_MARGIN_SECONDS = 10;
    /** Flyway's cap on the wait between connection retries when none is configured (Flyway's default). */
    static final Duration FLYWAY_DEFAULT_INTERVAL = Duration.ofSeconds(120);

    private static final Pattern JOB = Pattern.compile("job\\s*=\\s*\"([^\"]+)\"");
    private static final Pattern ONE_SERIES_PER_POD = Pattern.compile("(max|min|avg)\\s+by\\s*\\(\\s*pod\\s*\\)|(max|min|avg)\\s*\\(.*\\)\\s*by\\s*\\(\\s*pod\\s*\\)");

    private RoutineEvents() {
    }

    /**
     * Every KEDA prometheus trigger reads a metric that is really scraped and cannot be misread: an empty result is an
     * error ({@code ignoreNullValues: "false"}), not 0; the query selects the {@code job} of a PodMonitor of the build
     * that scrapes the scale target's pods on a port of theirs; and it keeps one series per pod before summing, so a
     * pod scraped twice still counts once.
     */
    static List<String> scalerMetricsAreScraped(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode so : m.ofKind("ScaledObject")) {
            String target = so.path("spec").path("scaleTargetRef").path("name").asText();
            Optional<JsonNode> workload = m.workloads().stream().filter(w -> Manifest.nameOf(w).equals(target)).map(w -> (JsonNode) w).findFirst();
            for (JsonNode t : so.path("spec").path("triggers")) {
                if (!t.path("type").asText().equals("prometheus")) {
                    continue;
                }
                String where = Manifest.id(so) + " prometheus trigger";
                JsonNode md = t.path("metadata");
                String query = md.path("query").asText();
                if (!md.path("ignoreNullValues").asText("true").equals("false")) {
                    out.add(where + ": ignoreNullValues is not \"false\": a metric nobody scrapes reads as 0 and scales down");
                }
                if (!ONE_SERIES_PER_POD.matcher(query).find()) {
                    out.add(where + ": query \"" + query + "\" does not keep one series per pod (max by (pod)) before summing:"
                            + " a pod scraped twice counts twice");
                }
                Matcher job = JOB.matcher(query);
                if (!job.find()) {
                    out.add(where + ": query \"" + query + "\" selects no job=\"<namespace>/<PodMonitor>\": every scrape of the metric adds to it");
                    continue;
                }
                Optional<JsonNode> pm = m.ofKind("PodMonitor").stream().filter(p -> jobOf(m, p).equals(job.group(1))).map(p -> (JsonNode) p).findFirst();
                if (pm.isEmpty()) {
                    out.add(where + ": job \"" + job.group(1) + "\" is no PodMonitor of the build (its series would not exist)");
                    continue;
                }
                if (workload.isPresent()) {
                    JsonNode w = workload.get();
                    if (!Manifest.selects(pm.get().path("spec").path("selector"), Manifest.podLabels(w))) {
                        out.add(where + ": " + Manifest.id(pm.get()) + " does not select the pods of " + Manifest.id(w));
                    }
                    List<String> ports = new ArrayList<>();
                    for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                        c.path("ports").forEach(p -> ports.add(p.path("name").asText()));
                    }
                    for (JsonNode ep : pm.get().path("spec").path("podMetricsEndpoints")) {
                        if (!ports.contains(ep.path("port").asText())) {
                            out.add(where + ": " + Manifest.id(pm.get()) + " scrapes port \"" + ep.path("port").asText()
                                    + "\", which " + Manifest.id(w) + " does not name (ports " + ports + ")");
                        }
                    }
                }
            }
        }
        return out;
    }

    /** The {@code job} label Prometheus Operator gives a PodMonitor's series: {@code <namespace>/<name>}. */
    static String jobOf(Manifest m, JsonNode podMonitor) {
        String ns = podMonitor.path("metadata").path("namespace").asText(NetworkFlows.namespace(m));
        return ns + "/" + Manifest.nameOf(podMonitor);
    }

    /**
     * A Kafka node pool of several nodes spreads them over Kubernetes nodes (a hard topology spread on
     * {@code kubernetes.io/hostname} selecting the pool's pods), and a Kafka with a pool of several brokers knows its
     * racks ({@code spec.kafka.rack}), so the replicas of a partition land in different failure domains.
     */
    static List<String> kafkaNodesSpread(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode pool : m.ofKind("KafkaNodePool")) {
            if (pool.path("spec").path("replicas").asInt(0) < 2) {
                continue;
            }
            String cluster = pool.path("metadata").path("labels").path("strimzi.io/cluster").asText();
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("strimzi.io/cluster", cluster);
            labels.put("strimzi.io/kind", "Kafka");
            labels.put("strimzi.io/pool-name", Manifest.nameOf(pool));
            labels.put("strimzi.io/name", cluster + "-" + Manifest.nameOf(pool));
            boolean spread = false;
            for (JsonNode tsc : pool.path("spec").path("template").path("pod").path("topologySpreadConstraints")) {
                spread |= tsc.path("topologyKey").asText().equals("kubernetes.io/hostname")
                        && tsc.path("whenUnsatisfiable").asText().equals("DoNotSchedule")
                        && tsc.path("maxSkew").asInt(0) == 1
                        && Manifest.selects(tsc.path("labelSelector"), labels);
            }
            if (!spread) {
                out.add(Manifest.id(pool) + ": " + pool.path("spec").path("replicas").asInt() + " nodes with no topology spread"
                        + " (maxSkew 1, kubernetes.io/hostname, DoNotSchedule, selecting the pool's pods): two may share a node");
            }
            boolean brokers = false;
            for (JsonNode r : pool.path("spec").path("roles")) {
                brokers |= r.asText().equals("broker");
            }
            if (brokers) {
                m.find("Kafka", cluster).filter(k -> k.path("spec").path("kafka").path("rack").path("topologyKey").asText("").isEmpty())
                        .ifPresent(k -> out.add(Manifest.id(k) + ": no spec.kafka.rack.topologyKey while " + Manifest.id(pool)
                                + " has several brokers: replicas of a partition may share a zone"));
            }
        }
        return out;
    }

    /**
     * A service that migrates its schema with Flyway at start retries the database connection for at least
     * {@link #MIN_DATABASE_WAIT}, and its startup probe outlasts those retries plus {@link #BOOT_MARGIN}; otherwise a late
     * database makes the JVM exit (a crash loop) or the kubelet kill it while it waits.
     */
    static List<String> databaseRetriesWithinStartupProbe(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                if (!RunJava.runsRunJava(c) || !migratesAtStart(c.path("name").asText())) {
                    continue;
                }
                String where = Manifest.id(w) + " container " + c.path("name").asText();
                Map<String, String> env = RunJava.containerEnv(m, c, v -> Optional.empty());
                int retries = Integer.parseInt(env.getOrDefault("QUARKUS_FLYWAY_CONNECT_RETRIES", "0"));
                Duration cap = Optional.ofNullable(env.get("QUARKUS_FLYWAY_CONNECT_RETRIES_INTERVAL")).map(RoutineEvents::duration)
                        .orElse(FLYWAY_DEFAULT_INTERVAL);
                Duration wait = flywayWait(retries, cap);
                if (wait.compareTo(MIN_DATABASE_WAIT) < 0) {
                    out.add(where + ": Flyway waits " + wait.toSeconds() + " s for the database (QUARKUS_FLYWAY_CONNECT_RETRIES="
                            + retries + "), less than " + MIN_DATABASE_WAIT.toSeconds() + " s: a late database makes the JVM exit");
                }
                JsonNode probe = c.path("startupProbe");
                long window = probe.isMissingNode()
                        ? c.path("livenessProbe").path("initialDelaySeconds").asLong(0)
                                + c.path("livenessProbe").path("periodSeconds").asLong(10) * c.path("livenessProbe").path("failureThreshold").asLong(3)
                        : probe.path("initialDelaySeconds").asLong(0) + probe.path("periodSeconds").asLong(10) * probe.path("failureThreshold").asLong(3);
                if (window < wait.plus(BOOT_MARGIN).toSeconds()) {
                    out.add(where + ": the startup window (" + window + " s) is shorter than Flyway's connection retries ("
                            + wait.toSeconds() + " s) plus " + BOOT_MARGIN.toSeconds() + " s to boot: the kubelet kills it while it waits");
                }
            }
        }
        return out;
    }

    /**
     * Flyway's total wait over {@code retries} connection retries: 1 s, doubling each time, each capped at {@code cap}
     * (Flyway's {@code connectRetries} / {@code connectRetriesInterval}).
     */
    static Duration flywayWait(int retries, Duration cap) {
        long total = 0;
        long next = 1;
        for (int i = 0; i < retries; i++) {
            total += Math.min(next, cap.toSeconds());
            next = Math.min(next * 2, cap.toSeconds());
        }
        return Duration.ofSeconds(total);
    }

    /**
     * Every container of a Deployment whose pods a Service selects waits in {@code preStop} before SIGTERM (so the
     * endpoint removal reaches kube-proxy and the ingress while it still serves), and the grace period leaves the
     * application {@link #SHUTDOWN_MARGIN_SECONDS} after that wait.
     */
    static List<String> preStopDrainDelay(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.ofKind("Deployment")) {
            Map<String, String> labels = Manifest.podLabels(w);
            boolean served = m.ofKind("Service").stream().anyMatch(s -> s.path("spec").has("selector")
                    && !s.path("spec").path("selector").isEmpty()
                    && Manifest.strings(s.path("spec").path("selector")).entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey()))));
            if (!served) {
                continue;
            }
            JsonNode spec = Manifest.podTemplate(w).orElseThrow().path("spec");
            long grace = spec.path("terminationGracePeriodSeconds").asLong(30);
            for (JsonNode c : spec.path("containers")) {
                JsonNode pre = c.path("lifecycle").path("preStop");
                long delay = pre.path("sleep").path("seconds").asLong(0);
                if (delay == 0 && pre.path("exec").path("command").size() > 0) {
                    List<String> cmd = new ArrayList<>();
                    pre.path("exec").path("command").forEach(x -> cmd.add(x.asText()));
                    Matcher s = Pattern.compile("(?:^|\\s|/)sleep\\s+(\\d+)").matcher(String.join(" ", cmd));
                    delay = s.find() ? Long.parseLong(s.group(1)) : 0;
                }
                String where = Manifest.id(w) + " container " + c.path("name").asText();
                if (delay < 1) {
                    out.add(where + ": no preStop delay: SIGTERM arrives while the Service and the ingress still send it requests");
                } else if (delay + SHUTDOWN_MARGIN_SECONDS > grace) {
                    out.add(where + ": preStop waits " + delay + " s of a " + grace + " s grace period, leaving less than "
                            + SHUTDOWN_MARGIN_SECONDS + " s to shut down");
                }
            }
        }
        return out;
    }

    /** A pod that sets {@code fsGroup} sets {@code fsGroupChangePolicy: OnRootMismatch} (no recursive chown at each start). */
    static List<String> fsGroupChangeOnRootMismatch(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            JsonNode sc = Manifest.podTemplate(w).orElseThrow().path("spec").path("securityContext");
            if (sc.has("fsGroup") && !sc.path("fsGroupChangePolicy").asText().equals("OnRootMismatch")) {
                out.add(Manifest.id(w) + ": fsGroup without fsGroupChangePolicy: OnRootMismatch: every start changes the"
                        + " ownership of every file of its volumes (slow on a large workspace)");
            }
        }
        return out;
    }

    private static boolean migratesAtStart(String service) {
        Path props = Manifest.repo().resolve(service).resolve("src/main/resources/application.properties");
        if (!Files.isRegularFile(props)) {
            return false;
        }
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(props)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("quarkus.flyway.migrate-at-start", "false").strip().equals("true");
    }

    /** A Quarkus duration: {@code 10s}, {@code 2m}, {@code PT10S} or plain seconds. */
    static Duration duration(String v) {
        String s = v.strip();
        if (s.startsWith("P") || s.startsWith("p")) {
            return Duration.parse(s);
        }
        Matcher m = Pattern.compile("(\\d+)(ms|s|m|h|d)?", Pattern.CASE_INSENSITIVE).matcher(s);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: " + v);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2) == null ? "s" : m.group(2).toLowerCase()) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofSeconds(n);
        };
    }
}

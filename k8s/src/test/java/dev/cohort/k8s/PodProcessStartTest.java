package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.kafka.EmbeddedKafka;
import dev.cohort.devstack.pg.LocalPostgres;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ProcessMemory;
import dev.cohort.devstack.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Starts each Cohort workload of each overlay as its pod would start it, on this machine: the JVM options
 * {@link RunJava} composes from the image's defaults and the container's env (its ConfigMap and Secrets with test
 * values), the container's memory limit, a read-only working directory and home with only the manifest's writable
 * mounts writable, against devstack's KRaft broker and PostgreSQL; the service must answer its readiness probe as the
 * kubelet would ask it: the probe's path on the port the probe names, the container port {@code management} (Quarkus'
 * management interface, where health and metrics are served and not on the http port). Before the start, the test
 * checks that the probes name that port and that it is the port the service would listen on in the pod (its
 * {@code quarkus.management.port} with the pod's env applied). The process ({@link ServiceProcess}) then gets free
 * local ports for its http and management interfaces ({@code QUARKUS_HTTP_PORT}, {@code QUARKUS_MANAGEMENT_PORT}, on
 * 127.0.0.1), as a port mapping would map the container's ports, since several services share this machine; once
 * ready, its http port must not answer the readiness path. VALIDATION.md says what this does not reproduce (the
 * image's JDK, uid 185, the kernel's read-only root, cgroups).
 */
class PodProcessStartTest {

    /** Several services boot one after another on a shared 2-core machine under load. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    /** Test values for the hand-made Secret's keys: long enough for every token check of the services. */
    private static final String TEST_SECRET = "test-secret-0123456789abcdef0123456789abcdef";
    /** The image's JDK: the first with the one-step AOT cache flags and product compact object headers. */
    private static final int AOT_JDK = 25;
    /** Refused connections a service must survive before its database comes up (Flyway's first retries: 1, 2 s). */
    private static final int CUT_OFF_ATTEMPTS = 3;

    private static EmbeddedKafka kafka;
    private static LocalPostgres postgres;
    private static final List<Path> dirs = new ArrayList<>();

    static Stream<Arguments> workloads() {
        List<Arguments> out = new ArrayList<>();
        for (Path o : Manifest.overlays()) {
            Manifest m = Manifest.of(o);
            for (JsonNode w : m.workloads()) {
                for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                    if (RunJava.runsRunJava(c)) {
                        out.add(Arguments.of(m.name(), Manifest.nameOf(w), c.path("name").asText()));
                    }
                }
            }
        }
        return out.stream();
    }

    @Test
    void everyOverlayHasAJvmWorkloadToStart() {
        assertThat(workloads().map(a -> a.get()[0] + "/" + a.get()[1]))
                .contains("overlays/dev/lead-service", "overlays/prod/teammate-service");
    }

    /**
     * What run-java.sh's options do on a JVM: it starts ({@code -version}) and runs exactly one collector. The image's
     * AOT cache ({@code -XX:AOTCache=/deployments/app.aot}) is not on this machine: the JVM reports that and starts
     * without it, as a pod does whose cache does not fit.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("workloads")
    void theComposedJvmOptionsStartAJvm(String build, String workload, String container) throws Exception {
        Pod pod = pod(build, workload, container, Map.of());
        assertThat(RunJava.collectors(pod.jvmOptions())).as("collectors of %s", pod.jvmOptions()).hasSize(1);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(pod.jvmOptions());
        cmd.add("-version");
        Path log = Files.createTempFile("cohort-jvm-version-", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("java -version returns").isTrue();
            assertThat(p.exitValue()).as("%s\n%s", String.join(" ", cmd), Files.readString(log)).isZero();
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The packaged service, started with the pod's command line, env and writable mounts, answers its readiness probe. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("workloads")
    void theServiceStartsAsItsPodWouldAndBecomesReady(String build, String workload, String container) {
        Manifest m = Manifest.of(Manifest.k8sDir().resolve(build));
        // the module the container's image is built from (the team sandbox's container runs the tool runner's)
        JsonNode w = m.workloads().stream().filter(o -> Manifest.nameOf(o).equals(workload)).findFirst().orElseThrow();
        JsonNode c = Manifest.containers(w).stream().filter(x -> x.path("name").asText().equals(container)).findFirst()
                .orElseThrow();
        Path jar = Manifest.repo().resolve(RunJava.serviceOf(c).orElseThrow()).resolve("target/quarkus-app/quarkus-run.jar");
        assertThat(jar).as("the packaged service (built before this module in the reactor)").isRegularFile();
        startInfrastructure(m);
        Map<String, String> infra = new LinkedHashMap<>();
        // the Strimzi bootstrap Service's name resolves only in the cluster: devstack's broker stands in for it, with the
        // SASL login it wants (KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_*)
        infra.putAll(kafka.serviceEnvironment());
        Pod pod = pod(build, workload, container, infra);
        try (ServiceProcess sp = ServiceProcess.start(workload, jar, Ports.free(), pod.env(), pod.workDir(), START_TIMEOUT,
                pod.jvmOptions())) {
            assertThat(sp.isAlive()).isTrue();
            // the http port answers (it is up: readiness comes after both interfaces listen), but not with health
            assertThat(httpStatus(sp.url() + pod.readinessPath()))
                    .as("%s on the http port, which the Service and the API's NetworkPolicies open: health is served on the"
                            + " management port only", pod.readinessPath())
                    .isPositive().isNotEqualTo(200);
            // what the container's memory limit would count right after the start (docs/benchmarks/service-memory.md
            // has the figures under load)
            try {
                System.out.printf("[pod-start] %s %s: %s%n", build, workload, ProcessMemory.of(sp.pid(), sp.managementUrl()).describe());
            } catch (IOException | InterruptedException e) {
                System.out.printf("[pod-start] %s %s: memory unreadable (%s)%n", build, workload, e.getMessage());
            }
        }
    }

    /**
     * A service whose pod starts before PostgreSQL accepts connections (a fresh install, a failover) waits for it
     * instead of exiting: the pod's env (its Flyway connection retries) on prod's teammate-service; the database's
     * port first answers one connection and closes it, as a server that is not up yet, then PostgreSQL starts there.
     */
    @Test
    void aServiceStartedBeforeItsDatabaseWaitsForItAndBecomesReady() throws Exception {
        Manifest m = Manifest.of(Manifest.k8sDir().resolve("overlays/prod"));
        Path jar = Manifest.repo().resolve("teammate-service/target/quarkus-app/quarkus-run.jar");
        assertThat(jar).isRegularFile();
        startInfrastructure(m);
        Map<String, String> infra = new LinkedHashMap<>();
        infra.putAll(kafka.serviceEnvironment());
        int dbPort = Ports.free();
        infra.put("COHORT_DB_URL", "jdbc:postgresql://127.0.0.1:" + dbPort + "/" + LocalPostgres.DATABASE);
        // the service gets its credentials before the server exists, as from CNPG's Secret before the instance is up
        String password = LocalPostgres.newPassword();
        infra.put("COHORT_DB_USER", LocalPostgres.USER);
        infra.put("COHORT_DB_PASSWORD", password);
        Pod pod = pod("overlays/prod", "teammate-service", "teammate-service", infra);
        CompletableFuture<ServiceProcess> started;
        try (ServerSocket notUpYet = new ServerSocket(dbPort, 50, InetAddress.getLoopbackAddress())) {
            started = CompletableFuture.supplyAsync(() -> ServiceProcess.start("teammate-service-early", jar, Ports.free(), pod.env(),
                    pod.workDir(), START_TIMEOUT, pod.jvmOptions()));
            // CUT_OFF_ATTEMPTS connection attempts reach the port and are cut off: the service keeps trying while the
            // database is not there; one that gives up exits instead, which ends the wait with its log
            notUpYet.setSoTimeout(1000);
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            int cutOff = 0;
            while (cutOff < CUT_OFF_ATTEMPTS) {
                if (started.isDone()) {
                    started.join(); // throws: the service exited (or became ready without its database)
                    throw new AssertionError("the service became ready while its database refused every connection");
                }
                assertThat(System.nanoTime()).as("%d connection attempts within %s", CUT_OFF_ATTEMPTS, START_TIMEOUT).isLessThan(deadline);
                try (Socket attempt = notUpYet.accept()) {
                    cutOff++;
                } catch (SocketTimeoutException noAttemptYet) {
                    // no attempt in this second: look at the process again
                }
            }
        }
        try (LocalPostgres late = LocalPostgres.start(dbPort, password)) {
            ServiceProcess sp = started.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            try (sp) {
                assertThat(sp.isAlive()).isTrue();
            }
        } finally {
            started.thenAccept(ServiceProcess::close);
        }
    }

    /**
     * A pod of a build, made runnable here.
     *
     * @param env the container's env with test values, and {@code QUARKUS_MANAGEMENT_PORT} a free local port
     * @param readinessPath the readiness probe's path (ServiceProcess asks it on the management port)
     */
    record Pod(List<String> jvmOptions, Map<String, String> env, Path workDir, String readinessPath) {
    }

    private static Pod pod(String build, String workload, String container, Map<String, String> overrides) {
        Manifest m = Manifest.of(Manifest.k8sDir().resolve(build));
        JsonNode w = m.workloads().stream().filter(o -> Manifest.nameOf(o).equals(workload)).findFirst().orElseThrow();
        JsonNode spec = Manifest.podTemplate(w).orElseThrow().path("spec");
        JsonNode c = stream(spec.path("containers")).filter(x -> x.path("name").asText().equals(container)).findFirst().orElseThrow();
        Map<String, String> env = RunJava.containerEnv(m, c, v -> testValue(v, workload));
        String readinessPath = probesOnTheManagementPort(m, c, RunJava.serviceOf(c).orElseThrow());
        env.putAll(overrides);
        // the container's management port (checked above) mapped to a free port here, as a port mapping would: several
        // services share this machine; ServiceProcess binds it on 127.0.0.1 and waits for readiness there
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(Ports.free()));
        // the root filesystem is read-only: the working directory (run-java.sh's /deployments) and the image's home
        // are unwritable; each writable mount of the pod (emptyDir, PVC) is a fresh writable directory
        Path readOnly = dir("cohort-pod-root-");
        Map<String, Path> mounts = new LinkedHashMap<>();
        for (JsonNode vm : c.path("volumeMounts")) {
            if (!vm.path("readOnly").asBoolean(false)) {
                mounts.put(vm.path("mountPath").asText(), dir("cohort-pod-mount-"));
            }
        }
        env.replaceAll((k, v) -> onMounts(v, mounts));
        env.put("HOME", readOnly.toString());
        // run-java.sh composes the options from the image's env overlaid by the container's
        Map<String, String> runJavaEnv = new LinkedHashMap<>(Dockerfile.of(RunJava.serviceOf(c).orElseThrow()).env());
        runJavaEnv.putAll(env);
        List<String> opts = new ArrayList<>();
        for (String o : RunJava.options(runJavaEnv)) {
            // the image's JVM is a JDK 25; an older one here knows neither the AOT cache nor compact object headers
            if (Runtime.version().feature() < AOT_JDK && (o.startsWith("-XX:AOT") || o.equals("-XX:+UseCompactObjectHeaders"))) {
                continue;
            }
            opts.add(onMounts(o, mounts));
        }
        opts.add("-Duser.home=" + readOnly);
        // the container's memory limit as the JVM would see it through its cgroup
        String limit = c.path("resources").path("limits").path("memory").asText("");
        if (!limit.isEmpty()) {
            opts.add("-XX:MaxRAM=" + bytes(limit));
        }
        try {
            Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Pod(List.copyOf(opts), env, readOnly, readinessPath);
    }

    /**
     * The container's probes name its port {@code management}, and that port is where the service's management
     * interface listens in the pod ({@code quarkus.management.port}, the pod's env applied): what the kubelet asks is
     * what the service serves. Returns the readiness probe's path.
     */
    private static String probesOnTheManagementPort(Manifest m, JsonNode c, String service) {
        Integer containerPort = null;
        for (JsonNode p : c.path("ports")) {
            if (p.path("name").asText().equals(LeastExposure.MANAGEMENT)) {
                containerPort = p.path("containerPort").asInt();
            }
        }
        assertThat(containerPort).as("%s: a container port named %s", service, LeastExposure.MANAGEMENT).isNotNull();
        Properties props = CrossReferences.applicationProperties(service).orElseThrow();
        assertThat(CrossReferences.managementEnabled(props)).as("%s builds with quarkus.management.enabled=true", service).isTrue();
        assertThat(CrossReferences.managementPort(props, RunJava.containerEnv(m, c, v -> Optional.empty())))
                .as("%s: the port its management interface listens on in the pod is the container port %s", service, LeastExposure.MANAGEMENT)
                .isEqualTo(containerPort);
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            assertThat(c.path(probe).path("httpGet").path("port").asText()).as("%s: %s's port", service, probe)
                    .isEqualTo(LeastExposure.MANAGEMENT);
        }
        String path = c.path("readinessProbe").path("httpGet").path("path").asText();
        assertThat(path).as("%s: the readiness probe's path", service).isEqualTo("/q/health/ready");
        return path;
    }

    /** The status of a GET of {@code url}, or -1 when nothing answers. */
    private static int httpStatus(String url) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A value or option naming a path under a writable mount, moved to that mount's local directory. */
    private static String onMounts(String value, Map<String, Path> mounts) {
        String out = value;
        for (var e : mounts.entrySet()) {
            out = out.replaceAll("(^|[=:,\\s])" + Pattern.quote(e.getKey()) + "(?=/|$|[\\s:,])",
                    "$1" + Matcher.quoteReplacement(e.getValue().toString()));
        }
        return out;
    }

    /** Test values for what the cluster would give: Secrets (CNPG's from devstack's PostgreSQL) and field refs. */
    private static Optional<String> testValue(JsonNode valueFrom, String workload) {
        JsonNode s = valueFrom.path("secretKeyRef");
        if (!s.isMissingNode()) {
            String key = s.path("key").asText();
            if (s.path("name").asText().endsWith("-app") && postgres != null) {
                return Optional.of(switch (key) {
                    case "jdbc-uri" -> postgres.jdbcUrl();
                    case "username", "user" -> postgres.username();
                    case "password" -> postgres.password();
                    default -> TEST_SECRET;
                });
            }
            return Optional.of(TEST_SECRET);
        }
        if (valueFrom.path("fieldRef").path("fieldPath").asText().equals("metadata.name")) {
            return Optional.of(workload + "-7d9f8c6b5-x2k4p");
        }
        return Optional.of("test");
    }

    private static synchronized void startInfrastructure(Manifest m) {
        if (kafka == null) {
            Set<String> topics = new LinkedHashSet<>();
            for (JsonNode t : m.ofKind("KafkaTopic")) {
                topics.add(t.path("spec").path("topicName").asText(Manifest.nameOf(t)));
            }
            kafka = EmbeddedKafka.start(0, topics, 12);
        }
        if (postgres == null) {
            postgres = LocalPostgres.start(0);
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (kafka != null) {
            kafka.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        for (Path d : dirs) {
            d.toFile().setWritable(true);
            try (Stream<Path> s = Files.walk(d)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> {
                    p.toFile().setWritable(true);
                    p.toFile().delete();
                });
            }
        }
    }

    private static Path dir(String prefix) {
        try {
            Path d = Files.createTempDirectory(prefix);
            dirs.add(d);
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long bytes(String quantity) {
        var m = Pattern.compile("(\\d+)(Ki|Mi|Gi|K|M|G)?").matcher(quantity);
        if (!m.matches()) {
            throw new IllegalArgumentException("memory quantity " + quantity);
        }
        long n = Long.parseLong(m.group(1));
        return n * switch (m.group(2) == null ? "" : m.group(2)) {
            case "Ki" -> 1024L;
            case "Mi" -> 1024L * 1024;
            case "Gi" -> 1024L * 1024 * 1024;
            case "K" -> 1000L;
            case "M" -> 1000L * 1000;
            case "G" -> 1000L * 1000 * 1000;
            default -> 1L;
        };
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> l = new ArrayList<>();
        array.forEach(l::add);
        return l.stream();
    }
}

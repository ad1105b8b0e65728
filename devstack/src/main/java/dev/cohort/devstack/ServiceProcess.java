package dev.cohort.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A Cohort service (a Quarkus fast-jar) as a child process: used by tests that need a second real service (the
 * lead's tests call the real tool runner) and by crash and hand-over tests that SIGKILL or SIGTERM a service. Output goes to a log file.
 */
public final class ServiceProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final int port;
    private final int managementPort;
    private final Path log;
    private final Thread hook;

    private ServiceProcess(String name, Process process, int port, int managementPort, Path log) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.managementPort = managementPort;
        this.log = log;
        this.hook = new Thread(this::kill, "stop-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * The JVM flags of a service child unless told otherwise: a small heap, the serial collector, C1 only (tests start
     * many short-lived services on a shared machine; C1 starts them fastest).
     */
    public static final List<String> DEFAULT_JVM_FLAGS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /**
     * System property prefix to run a service with other JVM flags (benchmarks, e.g. with {@code cohort up}'s):
     * {@code -Dcohort.devstack.jvm-flags.<name>="-Xmx384m -XX:+UseSerialGC"} for the service started as {@code <name>},
     * or {@code -Dcohort.devstack.jvm-flags=…} for every one; unset, {@link #DEFAULT_JVM_FLAGS}.
     */
    public static final String JVM_FLAGS_PROPERTY = "cohort.devstack.jvm-flags";

    /** The flags {@link #start(String, Path, int, Map, Path, Duration)} gives service {@code name} (see {@link #JVM_FLAGS_PROPERTY}). */
    public static List<String> jvmFlags(String name) {
        String v = System.getProperty(JVM_FLAGS_PROPERTY + "." + name, System.getProperty(JVM_FLAGS_PROPERTY));
        if (v == null) {
            return DEFAULT_JVM_FLAGS;
        }
        return v.isBlank() ? List.of() : List.of(v.strip().split("\\s+"));
    }

    /**
     * Starts {@code jar} with the given environment (plus {@code QUARKUS_HTTP_PORT}, {@code QUARKUS_HTTP_HOST}, and a free
     * management port in {@code QUARKUS_MANAGEMENT_PORT} unless the environment names one) and waits until
     * {@code /q/health/ready} on the management port answers 200; JVM flags {@link #jvmFlags(String)}.
     */
    public static ServiceProcess start(String name, Path jar, int port, Map<String, String> env, Path workDir, Duration timeout) {
        return start(name, jar, port, env, workDir, timeout, jvmFlags(name));
    }

    /** {@link #start(String, Path, int, Map, Path, Duration)} with these JVM flags (before {@code -jar}). */
    public static ServiceProcess start(String name, Path jar, int port, Map<String, String> env, Path workDir, Duration timeout,
            List<String> jvmFlags) {
        for (String f : jvmFlags) {
            if (f == null || !f.startsWith("-") || f.equals("-jar")) {
                throw new IllegalArgumentException(name + ": JVM flag \"" + f + "\" is not a JVM option (each starts with '-',"
                        + " -jar is added here)");
            }
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(name + ": " + jar + " is missing; build it first (./mvnw -B install -DskipTests)");
        }
        boolean ownManagementPort = !env.containsKey("QUARKUS_MANAGEMENT_PORT");
        for (int attempt = 1;; attempt++) {
            // health and metrics are served on the management interface only (quarkus.management.enabled)
            int management = ownManagementPort ? Ports.free() : Integer.parseInt(env.get("QUARKUS_MANAGEMENT_PORT"));
            ServiceProcess sp = launch(name, jar, port, management, env, workDir, jvmFlags);
            try {
                sp.awaitReady(timeout);
                return sp;
            } catch (IllegalStateException e) {
                // a port picked here can be taken by another process before the service binds it: pick another
                if (!ownManagementPort || attempt == 3 || !sp.lostManagementPort()) {
                    throw e;
                }
            }
        }
    }

    private static ServiceProcess launch(String name, Path jar, int port, int management, Map<String, String> env,
            Path workDir, List<String> jvmFlags) {
        try {
            Path log = Files.createTempFile("cohort-" + name + "-", ".log");
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(jvmFlags);
            cmd.add("-jar");
            cmd.add(jar.toString());
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().putAll(env);
            pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
            pb.environment().put("QUARKUS_HTTP_HOST", "127.0.0.1");
            pb.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
            pb.environment().put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
            pb.directory(workDir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
            return new ServiceProcess(name, pb.start(), port, management, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** Whether the service failed to start because its management port was taken. */
    private boolean lostManagementPort() {
        String tail = logTail();
        return !process.isAlive() && tail.contains("Unable to start the management interface")
                && tail.contains("Address already in use");
    }

    /** Waits for readiness; on failure the process is killed and the log tail is in the exception. */
    public void awaitReady(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + logTail());
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(managementUrl() + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        kill();
        throw new IllegalStateException(name + " not ready within " + timeout + ":\n" + logTail());
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Where health ({@code /q/health}) and metrics ({@code /q/metrics}) are served: the management port. */
    public String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    public long pid() {
        return process.pid();
    }

    /** The name it was started as. */
    public String name() {
        return name;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** The last lines of the service's output, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** SIGKILL to the service, then to the processes it had started: the crash a test wants to survive. */
    public void kill() {
        // the service dies first, as in a real crash: were its children killed first, the still-living service could
        // see them end and record an outcome it would never get to record after a real SIGKILL
        List<ProcessHandle> children = process.descendants().toList();
        process.destroyForcibly();
        try {
            process.waitFor(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    /** SIGTERM without waiting: the service shuts down on its own, as in a rolling restart; see {@link #awaitExit}. */
    public void terminate() {
        process.destroy();
    }

    /** Waits up to {@code timeout} for the process to end: its exit status, or empty while it still runs. */
    public OptionalInt awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? OptionalInt.of(process.exitValue())
                    : OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** SIGTERM, then SIGKILL after 10 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            kill();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // shutting down
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException ignored) {
            // best effort
        }
    }
}

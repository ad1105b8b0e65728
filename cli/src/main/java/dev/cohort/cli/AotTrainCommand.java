package dev.cohort.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort aot-train}: trains the four services' AOT caches ({@link AotCache}) on JDK 25 or later. It runs the
 * demo session ({@link DemoCommand}: Kafka, PostgreSQL, the scripted model and the four services on free ports, four
 * prompts with a plan, tasks, a teammate, tool calls and an approval) with the services recording, then creates each
 * service's cache from its recording. {@code ./cohort} runs it after each build; {@code cohort up} then starts every
 * service from its cache. Below JDK 25 it says so and does nothing.
 */
@Command(name = "aot-train", mixinStandardHelpOptions = true,
        description = {"Train the services' start-up caches (JDK 25+ AOT cache) on the demo session.",
            "./cohort runs it after each build; cohort up uses the caches."})
public final class AotTrainCommand implements Callable<Integer> {

    static final List<String> MODULES = List.of("tool-runner-service", "lead-service", "teammate-service",
            "scheduler-service");

    @Option(names = "--if-stale", description = "Only when a service has no cache for this build and JVM.")
    boolean ifStale;

    @Override
    public Integer call() throws Exception {
        if (!AotCache.supported()) {
            System.out.println("cohort aot-train: this JDK is " + Runtime.version().feature() + "; the services' AOT cache"
                    + " needs JDK " + AotCache.MIN_JDK + " or later, so they start without one");
            return 0;
        }
        Path home = Path.of(System.getProperty("cohort.home", ".")).toAbsolutePath().normalize();
        List<Path> jars = MODULES.stream().map(m -> home.resolve(m).resolve("target/quarkus-app/quarkus-run.jar")).toList();
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                System.err.println("cohort aot-train: " + jar + " is missing - build first (./cohort does it for you)");
                return 2;
            }
        }
        if (ifStale && jars.stream().allMatch(AotCache::fresh)) {
            return 0;
        }
        for (Path jar : jars) {
            AotCache.clear(jar);
        }
        long t0 = System.nanoTime();
        System.out.println("cohort aot-train: running the demo with the services recording…");
        DemoCommand demo = new DemoCommand();
        // the steady flags the services run with (not the demo's quicker C1-only start), recording for the cache
        demo.extraEnv = Map.of("COHORT_AOT", "record", "COHORT_FAST_START", "0");
        int rc = demo.call();
        if (rc != 0) {
            System.err.println("cohort aot-train: the demo failed; the services start without a cache");
            return 1;
        }
        Path log = Files.createTempFile("cohort-aot-", ".log");
        int made = 0;
        for (Path jar : jars) {
            long t = System.nanoTime();
            if (AotCache.create(jar, UpCommand.jvmFlags("0"), log)) {
                made++;
                System.out.printf("cohort aot-train: %s: %d MB in %.1f s%n", jar.getParent().getParent().getParent().getFileName(),
                        Files.size(AotCache.cache(jar)) >> 20, (System.nanoTime() - t) / 1e9);
            } else {
                System.err.println("cohort aot-train: no cache for " + jar + " (the JVM's output: " + log + ")");
            }
        }
        System.out.printf("cohort aot-train: %d of %d caches in %.0f s%n", made, jars.size(), (System.nanoTime() - t0) / 1e9);
        if (made == jars.size()) {
            Files.deleteIfExists(log);
            return 0;
        }
        return 1;
    }
}

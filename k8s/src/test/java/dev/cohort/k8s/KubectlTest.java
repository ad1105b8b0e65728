package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kubectl is found or the failure says how to get it; it never talks to localhost:8080. */
class KubectlTest {

    @Test
    void aMissingKubectlFailsWithAMessageThatSaysHowToInstallIt(@TempDir Path dir) throws IOException {
        Path notExecutable = Files.writeString(dir.resolve("kubectl"), "#!/bin/sh\n");
        assertThatThrownBy(() -> Kubectl.find(List.of(dir.resolve("absent/kubectl"), notExecutable)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kubectl is required by the k8s module's tests and was not found")
                .hasMessageContaining("KUBECTL");
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
        assertThatThrownBy(() -> Kubectl.kustomize(Manifest.testResources().resolve("broken/kustomize-missing-resource")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kubectl kustomize")
                .hasMessageContaining("does-not-exist.yaml");
    }
}

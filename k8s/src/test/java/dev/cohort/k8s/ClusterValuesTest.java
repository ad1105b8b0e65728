package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The values only a cluster knows (the API server's address) are required per overlay: an overlay without its
 * {@code cluster.env} does not build, and the value it gives ends up in the NetworkPolicies that need it.
 */
class ClusterValuesTest {

    static Stream<String> overlays() {
        return Manifest.overlays().stream().map(p -> p.getFileName().toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void anOverlayWithoutItsClusterEnvDoesNotBuild(String overlay) {
        Path copy = Manifest.copyOfK8s(null);
        assertThatThrownBy(() -> Kubectl.kustomize(copy.resolve("overlays").resolve(overlay)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cluster.env");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void anOverlayWhoseClusterEnvLacksAKeyDoesNotBuild(String overlay) {
        Path copy = Manifest.copyOfK8s("apiserver-cidr=10.0.0.1/32\n");
        assertThatThrownBy(() -> Kubectl.kustomize(copy.resolve("overlays").resolve(overlay)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("image-registry");
    }

    @Test
    void prodDoesNotBuildWithoutTheObjectStoreOfItsBackups() {
        Path copy = Manifest.copyOfK8s("apiserver-cidr=10.0.0.1/32\nimage-registry=registry.example.com/cohort\n");
        assertThatThrownBy(() -> Kubectl.kustomize(copy.resolve("overlays/prod")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backup-destination-path");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void theImagesComeFromTheRegistryOfClusterEnv(String overlay) {
        Manifest m = Manifest.of(Manifest.k8sDir().resolve("overlays").resolve(overlay));
        for (String service : new String[] {"lead-service", "teammate-service", "scheduler-service", "tool-runner-service"}) {
            assertThat(m.find("Deployment", service)).as(service).hasValueSatisfying(d -> assertThat(
                    d.path("spec").path("template").path("spec").path("containers").path(0).path("image").asText())
                    .isEqualTo("registry.example.com/cohort/" + service + ":0.1.0"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void theApiServerAddressOfClusterEnvIsWhereTheOperandsReachTheApiServer(String overlay) throws IOException {
        Manifest m = Manifest.of(Manifest.k8sDir().resolve("overlays").resolve(overlay));
        for (String policy : new String[] {"allow-operands-to-apiserver", "allow-entity-operator-to-apiserver"}) {
            assertThat(m.find("NetworkPolicy", policy)).as(policy).hasValueSatisfying(np -> assertThat(
                    np.path("spec").path("egress").path(0).path("to").path(0).path("ipBlock").path("cidr").asText())
                    .isEqualTo("10.0.0.1/32"));
        }
        // the generator's ConfigMap is local-config: a source of values, not an object for the cluster
        assertThat(m.find("ConfigMap", "cohort-cluster")).isEmpty();
        Path example = Manifest.k8sDir().resolve("overlays").resolve(overlay).resolve("cluster.env.example");
        assertThat(Files.readAllLines(example)).as("the example names every key").anySatisfy(l -> assertThat(l).startsWith("apiserver-cidr="))
                .anySatisfy(l -> assertThat(l).startsWith("image-registry="));
    }
}

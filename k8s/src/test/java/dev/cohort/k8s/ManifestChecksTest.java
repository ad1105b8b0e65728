package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every check passes on every overlay of k8s/ and on VALIDATE's own fixture (the base of the broken fixtures).
 */
class ManifestChecksTest {

    static Stream<Path> builds() {
        List<Path> dirs = new ArrayList<>(Manifest.overlays());
        dirs.add(Manifest.testResources().resolve("fixture"));
        return dirs.stream();
    }

    static Stream<Arguments> buildsAndChecks() {
        return builds().flatMap(b -> Stream.of(Checks.values()).map(c -> Arguments.of(Manifest.k8sDir().relativize(b).toString(), c)));
    }

    @Test
    void theDevAndProdOverlaysExistAndBuildWithKustomize() {
        assertThat(Manifest.overlays()).extracting(p -> p.getFileName().toString()).contains("dev", "prod");
        for (Path o : Manifest.overlays()) {
            assertThat(Manifest.of(o).objects()).as("objects built from %s", o).isNotEmpty();
        }
    }

    @Test
    void everyOverlayRunsTheToolRunnerAsTheControlHalfOfTeamSandboxesBuiltFromTheCohortRegistry() {
        for (Path o : Manifest.overlays()) {
            Manifest m = Manifest.of(o);
            var template = m.find("SandboxTemplate", "team-sandbox").orElseThrow();
            var pod = template.path("spec").path("podTemplate").path("spec");
            assertThat(pod.path("containers").get(0).path("image").asText()).as(o.toString())
                    .isEqualTo("registry.example.com/cohort/tool-runner-service:0.1.0");
            assertThat(pod.path("runtimeClassName").asText()).as(o.toString())
                    .isEqualTo(o.getFileName().toString().equals("prod") ? "gvisor" : "");
            assertThat(m.find("SandboxWarmPool", "team-sandbox").orElseThrow().path("spec").path("sandboxTemplateRef").path("name").asText()).isEqualTo("team-sandbox");
            assertThat(m.find("RoleBinding", "tool-runner-sandboxes").orElseThrow().path("subjects").get(0).path("namespace").asText())
                    .isEqualTo(template.path("metadata").path("namespace").asText()).isNotEmpty();
            var runner = m.workloadOf("tool-runner-service").orElseThrow();
            assertThat(CrossReferences.containerEnv(m, runner)).as(o.toString()).containsEntry("COHORT_TOOL_RUNNER_ROLE", "control");
            assertThat(Manifest.replicas(runner)).as("tool runner replicas in %s", o)
                    .isGreaterThanOrEqualTo(o.getFileName().toString().equals("prod") ? 2 : 1);
            assertThat(runner.toString()).as("the control half mounts no workspace volume").doesNotContain("persistentVolumeClaim");
            assertThat(m.ofKind("PersistentVolumeClaim")).as("no shared workspace volume in %s", o).isEmpty();
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("buildsAndChecks")
    void everyCheckPassesOnEveryOverlayAndOnTheFixture(String build, Checks check) {
        assertThat(check.violations(Manifest.of(Manifest.k8sDir().resolve(build)))).as("%s on %s", check, build).isEmpty();
    }
}

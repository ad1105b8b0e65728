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

/** Every check passes on every overlay of k8s/ and on VALIDATE's own fixture (the base of the broken fixtures). */
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

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("buildsAndChecks")
    void everyCheckPassesOnEveryOverlayAndOnTheFixture(String build, Checks check) {
        assertThat(check.violations(Manifest.of(Manifest.k8sDir().resolve(build)))).as("%s on %s", check, build).isEmpty();
    }
}

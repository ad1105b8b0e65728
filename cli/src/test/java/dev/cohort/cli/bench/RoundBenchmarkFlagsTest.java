package dev.cohort.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.cli.UpCommand;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The services' JVM flags in the round benchmark: {@code cohort up}'s, replaced or extended, and a file per service. */
class RoundBenchmarkFlagsTest {

    @Test
    void theServicesGetCohortUpsFlagsIncludingFastStartWhenNothingIsGiven() {
        assertThat(RoundBenchmark.jvmFlags(Map.of(), Map.of())).isEqualTo(UpCommand.jvmFlags(null));
        assertThat(RoundBenchmark.jvmFlags(Map.of(), Map.of("COHORT_FAST_START", "1")))
                .isEqualTo(UpCommand.jvmFlags("1")).contains("-XX:TieredStopAtLevel=1");
    }

    @Test
    void extraFlagsAreAppendedFromTheOptionOrElseTheEnvironment() {
        List<String> up = UpCommand.jvmFlags(null);
        Map<String, String> env = Map.of(RoundBenchmark.JVM_EXTRA_ENV, " -XX:AOTCache=/tmp/a.aot ");

        assertThat(RoundBenchmark.jvmFlags(Map.of(), env)).containsExactlyElementsOf(concat(up, "-XX:AOTCache=/tmp/a.aot"));
        assertThat(RoundBenchmark.jvmFlags(Map.of("jvm-extra", "-XX:TieredStopAtLevel=1  -Xshare:off"), env))
                .containsExactlyElementsOf(concat(up, "-XX:TieredStopAtLevel=1", "-Xshare:off"));
        assertThat(RoundBenchmark.jvmFlags(Map.of("jvm-flags", "-Xmx1g", "jvm-extra", "-Xss512k"), Map.of()))
                .containsExactly("-Xmx1g", "-Xss512k");
    }

    @Test
    void theServicePlaceholderBecomesEachServicesName() {
        List<String> flags = List.of("-Xmx384m", "-XX:AOTCache=/tmp/aot/{service}.aot");

        assertThat(RoundBenchmark.serviceFlags(flags, "lead-service"))
                .containsExactly("-Xmx384m", "-XX:AOTCache=/tmp/aot/lead-service.aot");
        assertThat(RoundBenchmark.serviceFlags(flags, "tool-runner-service"))
                .containsExactly("-Xmx384m", "-XX:AOTCache=/tmp/aot/tool-runner-service.aot");
    }

    private static List<String> concat(List<String> head, String... tail) {
        return Stream.concat(head.stream(), Arrays.stream(tail)).toList();
    }
}

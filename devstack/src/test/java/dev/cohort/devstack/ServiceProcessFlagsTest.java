package dev.cohort.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The JVM flags of a service child: the tests' default, or a benchmark's own (e.g. {@code cohort up}'s). */
class ServiceProcessFlagsTest {

    @AfterEach
    void clear() {
        System.clearProperty(ServiceProcess.JVM_FLAGS_PROPERTY + ".flags-test");
        System.clearProperty(ServiceProcess.JVM_FLAGS_PROPERTY);
    }

    @Test
    void aServiceRunsWithTheTestDefaultUnlessToldOtherwise() {
        assertThat(ServiceProcess.jvmFlags("flags-test")).containsExactly("-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1");
    }

    @Test
    void thePropertyOfOneServiceWinsOverTheOneForAll() {
        System.setProperty(ServiceProcess.JVM_FLAGS_PROPERTY, "-Xmx128m");
        System.setProperty(ServiceProcess.JVM_FLAGS_PROPERTY + ".flags-test", " -Xmx384m  -XX:+UseSerialGC ");
        assertThat(ServiceProcess.jvmFlags("flags-test")).containsExactly("-Xmx384m", "-XX:+UseSerialGC");
        assertThat(ServiceProcess.jvmFlags("other")).containsExactly("-Xmx128m");
    }

    @Test
    void somethingThatIsNotAJvmOptionIsRefusedBeforeAnythingStarts() {
        assertThatThrownBy(() -> ServiceProcess.start("flags-test", Path.of("/nonexistent.jar"), 1, Map.of(), Path.of("."),
                Duration.ofSeconds(1), List.of("Xmx384m"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("flags-test: JVM flag \"Xmx384m\" is not a JVM option (each starts with '-', -jar is added here)");
    }
}

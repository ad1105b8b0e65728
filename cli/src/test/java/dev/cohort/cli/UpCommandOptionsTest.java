package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code cohort up} refuses replica and restart settings that cannot work before it starts anything; the services'
 * JVM flags and the {@code setsid} each one starts under.
 */
class UpCommandOptionsTest {

    private record Run(int rc, String err) {
    }

    private static Run up(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int rc;
        try (PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(e);
            rc = new CommandLine(new UpCommand()).execute(args);
        } finally {
            System.setErr(saved);
        }
        return new Run(rc, err.toString(StandardCharsets.UTF_8).strip());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --lead-replicas  | 0  | cohort up: --lead-replicas must be 1 or more, not 0
            --lead-replicas  | -2 | cohort up: --lead-replicas must be 1 or more, not -2
            --max-restarts   | -1 | cohort up: --max-restarts must be 0 or more and --restart-window 1 s or more, not -1 and 600
            --restart-window | 0  | cohort up: --max-restarts must be 0 or more and --restart-window 1 s or more, not 5 and 0
            """)
    void badReplicaOrRestartSettingsAreRefusedWithExitCode2AndTheReason(String option, String value, String message) {
        Run r = up(option, value);
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).isEqualTo(message);
    }

    @ParameterizedTest(name = "--teammate-replicas {0}")
    @CsvSource(delimiter = '|', textBlock = """
            0   | --teammate-replicas must be 1 to 16, not 0
            17  | --teammate-replicas must be 1 to 16, not 17
            -3  | --teammate-replicas must be 1 to 16, not -3
            two | Invalid value for option '--teammate-replicas': 'two' is not an int
            """)
    void aTeammateReplicaCountOutside1To16IsAUsageErrorNamingTheRange(String value, String message) {
        Run r = up("--teammate-replicas", value);
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err().lines().findFirst()).contains(message);
        assertThat(r.err()).contains("Usage: up ");
    }

    @ParameterizedTest(name = "--scheduler-replicas {0}")
    @CsvSource(delimiter = '|', textBlock = """
            0   | --scheduler-replicas must be 1 to 4, not 0
            5   | --scheduler-replicas must be 1 to 4, not 5
            -1  | --scheduler-replicas must be 1 to 4, not -1
            two | Invalid value for option '--scheduler-replicas': 'two' is not an int
            """)
    void aSchedulerReplicaCountOutside1To4IsAUsageErrorNamingTheRange(String value, String message) {
        Run r = up("--scheduler-replicas", value);
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err().lines().findFirst()).contains(message);
        assertThat(r.err()).contains("Usage: up ");
    }

    @ParameterizedTest(name = "--tool-runner-replicas {0}")
    @CsvSource(delimiter = '|', textBlock = """
            0   | --tool-runner-replicas must be 1 to 4, not 0
            5   | --tool-runner-replicas must be 1 to 4, not 5
            two | Invalid value for option '--tool-runner-replicas': 'two' is not an int
            """)
    void aToolRunnerReplicaCountOutside1To4IsAUsageErrorNamingTheRange(String value, String message) {
        Run r = up("--tool-runner-replicas", value);
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err().lines().findFirst()).contains(message);
        assertThat(r.err()).contains("Usage: up ");
    }

    @Test
    void eachToolRunnerReplicaHasItsOwnPortAndInstanceIdAndTheCallersGetEveryReplicasUrl() {
        AtomicInteger free = new AtomicInteger(42000);
        List<UpCommand.Service> planned = UpCommand.toolRunnerReplicas(2, 8083, free::incrementAndGet);
        assertThat(planned).containsExactly(
                new UpCommand.Service("tool-runner-service", "tool-runner-service", 8083,
                        Map.of("COHORT_INSTANCE_ID", "tool-runner-1")),
                new UpCommand.Service("tool-runner-service-2", "tool-runner-service", 42001,
                        Map.of("COHORT_INSTANCE_ID", "tool-runner-2")));
        assertThat(UpCommand.toolRunnerUrls(planned)).isEqualTo("http://127.0.0.1:8083,http://127.0.0.1:42001");
        // one replica: one URL, as before
        assertThat(UpCommand.toolRunnerUrls(UpCommand.toolRunnerReplicas(1, 8083, () -> {
            throw new AssertionError("one replica needs no free port");
        }))).isEqualTo("http://127.0.0.1:8083");
    }

    @Test
    void theFirstSchedulerReplicaGetsTheSchedulerPortAndTheOthersFreePorts() {
        AtomicInteger free = new AtomicInteger(41000);
        assertThat(UpCommand.schedulerReplicas(3, 8082, free::incrementAndGet)).containsExactly(
                new UpCommand.Service("scheduler-service", "scheduler-service", 8082),
                new UpCommand.Service("scheduler-service-2", "scheduler-service", 41001),
                new UpCommand.Service("scheduler-service-3", "scheduler-service", 41002));
        assertThat(UpCommand.schedulerReplicas(1, 8082, () -> {
            throw new AssertionError("one replica needs no free port");
        })).extracting(UpCommand.Service::port).containsExactly(8082);
    }

    @Test
    void theFirstTeammateReplicaGetsTheTeammatePortAndTheOthersFreePortsEachWithItsOwnPortAndInstanceId() {
        AtomicInteger free = new AtomicInteger(40000);
        List<UpCommand.Service> planned = UpCommand.teammateReplicas(3, 8081, free::incrementAndGet);
        assertThat(planned).containsExactly(
                new UpCommand.Service("teammate-service", "teammate-service", 8081,
                        Map.of("COHORT_TEAMMATE_PORT", "8081", "COHORT_INSTANCE_ID", "teammate-1")),
                new UpCommand.Service("teammate-service-2", "teammate-service", 40001,
                        Map.of("COHORT_TEAMMATE_PORT", "40001", "COHORT_INSTANCE_ID", "teammate-2")),
                new UpCommand.Service("teammate-service-3", "teammate-service", 40002,
                        Map.of("COHORT_TEAMMATE_PORT", "40002", "COHORT_INSTANCE_ID", "teammate-3")));
        assertThat(UpCommand.teammateReplicas(1, 8081, () -> {
            throw new AssertionError("one replica needs no free port");
        })).extracting(UpCommand.Service::port).containsExactly(8081);
    }

    @ParameterizedTest(name = "{0} leads, {1} teammates, {2} schedulers, {3} tool runners")
    @CsvSource(delimiter = '|', textBlock = """
            1 | 1 | 1 | 1 | ''
            2 | 1 | 1 | 1 | ' (2 lead-service replicas)'
            1 | 3 | 1 | 1 | ' (3 teammate-service replicas)'
            1 | 1 | 2 | 1 | ' (2 scheduler-service replicas)'
            1 | 1 | 1 | 2 | ' (2 tool-runner-service replicas)'
            2 | 2 | 2 | 2 | ' (2 lead-service replicas, 2 teammate-service replicas, 2 scheduler-service replicas, 2 tool-runner-service replicas)'
            """)
    void theReadyLineNamesTheServicesThatRunMoreThanOnce(int leads, int teammates, int schedulers, int toolRunners, String note) {
        assertThat(UpCommand.replicasNote(leads, teammates, schedulers, toolRunners)).isEqualTo(note);
    }

    @Test
    void servicesStartWithFullTieredCompilationUnlessCohortFastStartIs1() {
        assertThat(UpCommand.jvmFlags(null)).containsExactly("-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxTenuringThreshold=1");
        assertThat(UpCommand.jvmFlags("0")).containsExactly("-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxTenuringThreshold=1");
        assertThat(UpCommand.jvmFlags("yes")).containsExactly("-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxTenuringThreshold=1");
        assertThat(UpCommand.jvmFlags("1")).containsExactly("-Xmx384m", "-XX:+UseSerialGC", "-XX:MaxTenuringThreshold=1", "-XX:TieredStopAtLevel=1");
    }

    @Test
    void eachServiceStartsUnderTheFirstExecutableSetsidOnThePathOrWithoutOne(@TempDir Path tmp) throws IOException {
        Path none = Files.createDirectories(tmp.resolve("none"));
        Path plain = Files.createDirectories(tmp.resolve("plain"));
        Files.writeString(plain.resolve("setsid"), "not executable");
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path setsid = Files.writeString(bin.resolve("setsid"), "#!/bin/sh\nexec \"$@\"\n");
        Files.setPosixFilePermissions(setsid, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(tmp.resolve("dir/setsid"));

        assertThat(UpCommand.sessionPrefix(String.join(File.pathSeparator, none.toString(), "", plain.toString(),
                tmp.resolve("dir").toString(), bin.toString()))).containsExactly(setsid.toString());
        assertThat(UpCommand.sessionPrefix(none + File.pathSeparator + plain)).isEmpty();
        assertThat(UpCommand.sessionPrefix("")).isEmpty();
        assertThat(UpCommand.sessionPrefix(null)).isEmpty();
    }
}

package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

    @Test
    void theFullSuitePackagesTheServicesAndRunsOnlyTheReliabilityItsStrictlyIntoTheGivenReport() {
        assertThat(BenchCommand.Reliability.command("/repo/mvnw", false, true, "docs/RELIABILITY.md")).containsExactly(
                "/repo/mvnw", "-B", "-pl", "tool-runner-service,lead-service,teammate-service,scheduler-service,reliability", "-am",
                "verify", "-DskipNativeSources", "-Dtest=NONE", "-Dsurefire.failIfNoSpecifiedTests=false",
                "-Dit.test=ReliabilitySuiteIT", "-Dfailsafe.failIfNoSpecifiedTests=false", "-Dcohort.reliability.full=true",
                "-Dcohort.reliability.strict=true", "-Dcohort.reliability.report=docs/RELIABILITY.md");
    }

    @Test
    void noBuildAndShortReuseTheBuiltJarsAndRunTheVerifySubset() {
        assertThat(BenchCommand.Reliability.command("mvnw", true, false, "/tmp/r.md"))
                .contains("reliability", "-Dcohort.reliability.full=false", "-Dcohort.reliability.report=/tmp/r.md")
                .doesNotContain("tool-runner-service,lead-service,teammate-service,scheduler-service,reliability");
    }

    @Test
    void outsideACohortRepositoryItSaysSoWithExitCode2(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("README"), "not cohort");
        String before = System.getProperty("cohort.home");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setProperty("cohort.home", dir.toString());
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            int rc = new CommandLine(new Main()).execute("bench", "reliability", "--no-build");
            assertThat(rc).isEqualTo(2);
            assertThat(captured.toString(StandardCharsets.UTF_8)).contains("is not a Cohort repository (no mvnw or reliability/)");
        } finally {
            System.setErr(err);
            if (before == null) {
                System.clearProperty("cohort.home");
            } else {
                System.setProperty("cohort.home", before);
            }
        }
    }
}

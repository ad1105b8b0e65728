package dev.cohort.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/** A missing optional program skips with one printed line naming it and how to install it, or fails when required. */
class OptionalProgramTest {

    @Test
    void aMissingProgramSkipsTheTestWithOneLinePrintedOnceThatSaysHowToInstallIt() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);
        String line = "skipped: needs chromium and chromedriver (apt-get install chromium chromium-driver):"
                + " chromedriver is not on PATH";

        assertThatThrownBy(() -> OptionalProgram.CHROMIUM.check(Optional.of("chromedriver is not on PATH"), null, out))
                .isInstanceOf(TestAbortedException.class).hasMessage(line);
        assertThatThrownBy(() -> OptionalProgram.CHROMIUM.check(Optional.of("chromedriver is not on PATH"), "0", out))
                .isInstanceOf(TestAbortedException.class).hasMessage(line);

        assertThat(log.toString(StandardCharsets.UTF_8)).isEqualTo(line + System.lineSeparator());
    }

    @Test
    void underTheRequireFlagAMissingProgramFailsTheTestInstead() {
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThatThrownBy(() -> OptionalProgram.KUBECTL.check(Optional.of("kubectl is not on PATH"), "1", out))
                .isInstanceOf(AssertionError.class)
                .hasMessage("COHORT_TEST_REQUIRE_KUBECTL=1, but kubectl is not on PATH: needs kubectl ("
                        + OptionalProgram.KUBECTL.install() + ")");
    }

    @Test
    void aProgramThatIsThereLetsTheTestRunEvenUnderTheFlag() {
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        OptionalProgram.BWRAP.check(Optional.empty(), "1", out);
        OptionalProgram.BWRAP.check(Optional.empty(), null, out);
    }

    @Test
    void aProbesOutputOverSeveralLinesIsShownOnOne() {
        assertThat(OptionalProgram.BWRAP.skipLine("bwrap: setting up uid map:\n  Permission denied\n"))
                .isEqualTo("skipped: needs bubblewrap (apt-get install bubblewrap): bwrap: setting up uid map: / Permission denied");
    }

    @Test
    void onlyAnExecutableFileOnThePathIsFound(@TempDir Path dir) throws IOException {
        Path notExecutable = Files.createDirectories(dir.resolve("a"));
        Files.writeString(notExecutable.resolve("kubectl"), "#!/bin/sh\n");
        Path directory = Files.createDirectories(dir.resolve("b/kubectl")).getParent();
        Path bin = Files.createDirectories(dir.resolve("c"));
        Path kubectl = Files.writeString(bin.resolve("kubectl"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));

        assertThat(OptionalProgram.find("kubectl", notExecutable + ":" + directory + "::" + bin)).contains(kubectl);
        assertThat(OptionalProgram.find("kubectl", notExecutable + ":" + directory)).isEmpty();
        assertThat(OptionalProgram.find("kubectl", null)).isEmpty();
    }
}

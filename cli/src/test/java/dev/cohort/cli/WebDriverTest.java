package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The browser test finds chromium and chromedriver on PATH or where its variables say, never at a fixed path. */
class WebDriverTest {

    @Test
    void theProgramsAreLookedUpOnThePathSoAMachineWithoutThemHasNone(@TempDir Path dir) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path driver = Files.writeString(bin.resolve("chromedriver"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(driver, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(bin.resolve("chromium"), "#!/bin/sh\n"); // not executable: not a chromium

        Map<String, String> env = Map.of("PATH", dir.resolve("absent") + ":" + bin);
        assertThat(WebDriver.locate(env, "COHORT_CHROMEDRIVER", "chromedriver")).contains(driver);
        // WebDriver.browser() then skips the test through OptionalProgram.CHROMIUM (OptionalProgramTest shows the line)
        assertThat(WebDriver.locate(env, "COHORT_CHROMIUM", "chromium")).isEmpty();
        assertThat(WebDriver.locate(Map.of(), "COHORT_CHROMIUM", "chromium")).isEmpty();
    }

    @Test
    void aVariableNamingAProgramWinsAndOneNamingNothingIsAnErrorNotASkip(@TempDir Path dir) throws IOException {
        Path chromium = Files.writeString(dir.resolve("my-chromium"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(chromium, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(WebDriver.locate(Map.of("COHORT_CHROMIUM", chromium.toString(), "PATH", "/nowhere"), "COHORT_CHROMIUM",
                "chromium")).contains(chromium);
        assertThatThrownBy(() -> WebDriver.locate(Map.of("COHORT_CHROMIUM", dir.resolve("gone").toString()), "COHORT_CHROMIUM",
                "chromium")).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("COHORT_CHROMIUM=" + dir.resolve("gone") + " is not an executable file");
    }
}

package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ./cohort} launcher script itself (after {@code package}, so it needs no build). */
class LauncherIT {
    @TempDir
    Path tmp;

    @Test
    void theLauncherHonoursTheUsersCohortHome() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("cohort-home"));
        // a run that points at a port nobody listens on: the error names it, proving up.json was read from COHORT_HOME
        Files.writeString(home.resolve("up.json"),
                "{\"leadUrl\":\"http://127.0.0.1:1\",\"schedulerUrl\":\"http://127.0.0.1:1\",\"apiToken\":\"x\",\"pid\":1}");
        Path launcher = Path.of("..", "cohort").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder("sh", launcher.toString(), "team", "list").redirectErrorStream(true);
        pb.environment().put("COHORT_HOME", home.toString());
        pb.environment().put("COHORT_NO_BUILD", "1");
        pb.environment().put("HOME", tmp.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("cannot reach http://127.0.0.1:1 ");
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(launcher.resolveSibling("up.json")).doesNotExist();
    }
}

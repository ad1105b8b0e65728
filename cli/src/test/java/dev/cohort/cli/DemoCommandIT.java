package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code cohort demo} as its own process: every scripted turn completes, the board is printed, exit 0. */
class DemoCommandIT {

    @Test
    void theDemoRunsEndToEnd() throws Exception {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dcohort.home=" + repo, "dev.cohort.cli.Main", "demo")
                .redirectErrorStream(true);
        pb.environment().remove("COHORT_API_TOKEN");
        Process demo = pb.start();
        List<String> out = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.add(line);
                    System.out.println("[cohort demo] " + line);
                }
            } catch (Exception ignored) {
                // ended
            }
        });
        try {
            assertThat(demo.waitFor(300, TimeUnit.SECONDS)).as("demo ends").isTrue();
            reader.join(5_000);
            assertThat(demo.exitValue()).as(String.join("\n", out)).isZero();
            assertThat(out.stream().filter(l -> l.startsWith("── turn completed")).count()).isEqualTo(DemoCommand.PROMPTS.size());
            assertThat(out).contains("Approve bash: rm -r build? [y/N] y   (the demo answers)", "Removed build/.")
                    .anyMatch(l -> l.startsWith("✓ task_1 Design the users table schema completed by lead; unblocked: task_2"))
                    .anyMatch(l -> l.matches("task_1\\s+completed\\s+lead\\s+Design the users table schema"))
                    .noneMatch(l -> l.startsWith("↻") || l.startsWith("error:"));
        } finally {
            if (demo.isAlive()) {
                demo.destroy();
                demo.waitFor(90, TimeUnit.SECONDS);
            }
        }
    }
}

package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.Ports;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Black box: {@code cohort up} as its own process on free ports with the scripted model brings all four services
 * to ready, answers a {@code cohort send}, and SIGINT leaves no process, no listening port and no temp directory.
 */
class UpCommandIT {

    @TempDir
    Path tmp;

    @Test
    void upStartsEverythingAnswersAPromptAndSigintLeavesNothingRunning() throws Exception {
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path scenario = tmp.resolve("scenario.json");
        Files.writeString(scenario, """
                {"rules":[
                 {"name":"memory","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}},
                 {"name":"pong","match":{"agent":"default/lead","lastMessage":"^ping$"},"reply":{"text":"pong"}}]}""");
        int[] ports = new int[7];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        Path repo = Path.of("..").toAbsolutePath().normalize();
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dcohort.home=" + repo, "dev.cohort.cli.Main", "up",
                "--kafka-port", "" + ports[0], "--pg-port", "" + ports[1], "--lead-port", "" + ports[2],
                "--teammate-port", "" + ports[3], "--scheduler-port", "" + ports[4], "--tool-runner-port", "" + ports[5],
                "--scripted-model=" + scenario);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workspace.toFile()).redirectErrorStream(true);
        pb.environment().put("COHORT_HOME", home.toString());
        pb.environment().put("COHORT_MODEL_PORT", "" + ports[6]);
        pb.environment().remove("COHORT_API_TOKEN");
        pb.environment().remove("COHORT_DB_URL");
        pb.environment().remove("COHORT_SANDBOX");
        long t0 = System.nanoTime();
        Process up = pb.start();
        List<String> out = new CopyOnWriteArrayList<>();
        // the echo goes to the console captured now: System.out is swapped below to capture `cohort send`
        PrintStream console = System.out;
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.add(line);
                    console.println("[cohort up] " + line);
                }
            } catch (Exception ignored) {
                // process ended
            }
        });
        try {
            await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !up.isAlive() || out.stream().anyMatch(l -> l.contains("all four services ready")));
            assertThat(up.isAlive()).as("cohort up is running; output:%n%s", String.join("\n", out)).isTrue();
            System.out.printf("[cohort up] ready after %.1f s%n", (System.nanoTime() - t0) / 1e9);
            // sandboxed by default, and the start-up lines say with what
            assertThat(out).anyMatch(l -> l.matches("cohort up: tool sandbox: (bubblewrap|unshare) \\(COHORT_SANDBOX=auto\\)"));
            String logsLine = out.stream().filter(l -> l.strip().startsWith("logs")).findFirst().orElseThrow();
            Path runDir = Path.of(logsLine.strip().substring(4).strip()).getParent();
            assertThat(runDir).exists();
            List<ProcessHandle> children = new ArrayList<>(up.descendants().toList());
            assertThat(children).hasSizeGreaterThanOrEqualTo(4);

            // the CLI finds the run through up.json (token generated, mode 600)
            JsonNode run = Json.MAPPER.readTree(home.resolve("up.json").toFile());
            assertThat(run.get("apiToken").asText()).hasSizeGreaterThanOrEqualTo(32);
            assertThat(Files.getPosixFilePermissions(home.resolve("up.json")).toString()).isEqualTo("[OWNER_READ, OWNER_WRITE]");

            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            PrintStream saved = System.out;
            int rc;
            try (PrintStream capture = new PrintStream(answer, true, StandardCharsets.UTF_8)) {
                System.setOut(capture);
                rc = new CommandLine(new SendCommand()).execute("ping", "--url", run.get("leadUrl").asText(),
                        "--token", run.get("apiToken").asText());
            } finally {
                System.setOut(saved);
            }
            assertThat(rc).isZero();
            assertThat(answer.toString(StandardCharsets.UTF_8).strip()).isEqualTo("pong");

            // without the token the API refuses
            var http = java.net.http.HttpClient.newHttpClient();
            var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(run.get("leadUrl").asText() + "/api/v1/teams"))
                    .GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(401);

            new ProcessBuilder("kill", "-INT", Long.toString(up.pid())).start().waitFor();
            assertThat(up.waitFor(90, TimeUnit.SECONDS)).as("cohort up exits after SIGINT").isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            for (int p : ports) {
                await().atMost(Duration.ofSeconds(30)).until(() -> !listening(p));
            }
            assertThat(runDir).doesNotExist();
            assertThat(home.resolve("up.json")).doesNotExist();
        } finally {
            if (up.isAlive()) {
                up.descendants().forEach(ProcessHandle::destroyForcibly);
                up.destroyForcibly();
            }
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}

package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.Ports;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Black box: {@code cohort up} as its own process on free ports with the scripted model brings all four services
 * to ready and answers {@code cohort send}s (each prints only its own turn's final answer; a failed turn exits 1).
 * SIGINT, and SIGTERM, leave no process, no listening port and nothing in the temporary directory it was given
 * (its run directory, the broker's and the database's directories, the services' temporary files). Tokens given in
 * the environment are the ones the services use; otherwise they are generated.
 */
class UpCommandIT {

    /** The real stdout: the echo of {@code cohort up} must not land in what a {@code send} captures. */
    private static final PrintStream CONSOLE = System.out;

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newHttpClient();

    /** A running {@code cohort up}: its process, its output so far, its ports (the last is the scripted model's). */
    record Up(Process process, List<String> out, int[] ports, Path tmpDir) {
    }

    record Sent(int rc, String out, String err) {
    }

    @Test
    void upStartsEverythingAnswersEachPromptWithItsOwnTurnAndSigintLeavesNothingRunning() throws Exception {
        Path scenario = tmp.resolve("scenario.json");
        Files.writeString(scenario, """
                {"rules":[
                 {"name":"memory","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}},
                 {"name":"pong","match":{"agent":"default/lead","lastMessage":"^ping$"},"reply":{"text":"pong"}},
                 {"name":"work","match":{"agent":"default/lead","lastMessage":"^work$"},
                  "reply":{"text":"let me check","toolCalls":[{"name":"bash","arguments":{"command":"echo checked"}}]}},
                 {"name":"worked","match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"worked"}},
                 {"name":"fail","match":{"agent":"default/lead","lastMessage":"^fail$"},"reply":{"error":{"preset":"invalid_api_key"}}}]}""");
        Up up = start(tmp, scenario, Map.of());
        try {
            Path runDir = awaitReady(up);
            List<ProcessHandle> children = new ArrayList<>(up.process().descendants().toList());
            assertThat(children).hasSizeGreaterThanOrEqualTo(4);
            assertThat(up.out()).anyMatch(l -> l.strip().equals("api token" + " ".repeat(12) + "generated (saved for the CLI in "
                    + tmp.resolve("home").resolve("up.json") + ")"))
                    .anyMatch(l -> l.strip().equals("service tokens" + " ".repeat(7) + "internal generated, tool runner generated"));

            // the CLI finds the run through up.json (token generated, mode 600)
            JsonNode run = Json.MAPPER.readTree(tmp.resolve("home").resolve("up.json").toFile());
            String leadUrl = run.get("leadUrl").asText();
            String token = run.get("apiToken").asText();
            assertThat(token).hasSizeGreaterThanOrEqualTo(32);
            assertThat(Files.getPosixFilePermissions(tmp.resolve("home").resolve("up.json")).toString())
                    .isEqualTo("[OWNER_READ, OWNER_WRITE]");
            assertThat(String.join("\n", up.out())).doesNotContain(token);

            assertThat(send("ping", leadUrl, token)).isEqualTo(new Sent(0, "pong", ""));
            // the second prompt's turn has an intermediate text with a tool call: only its final answer is printed
            assertThat(send("work", leadUrl, token)).isEqualTo(new Sent(0, "worked", ""));
            Sent failed = send("fail", leadUrl, token);
            assertThat(failed.rc()).isEqualTo(1);
            assertThat(failed.out()).isEmpty();
            assertThat(failed.err()).startsWith("error: The model provider refused the credentials (HTTP 401");

            // without the token the API refuses
            assertThat(get(leadUrl + "/api/v1/teams", null)).isEqualTo(401);

            signal(up, "INT");
            assertNothingLeft(tmp, up, children, runDir);
        } finally {
            kill(up);
        }
    }

    @Test
    void tokensGivenInTheEnvironmentAreTheOnesUsedAndSigtermLeavesNothingRunning() throws Exception {
        String apiToken = "given-api-token-0123456789abcdef";
        String internalToken = "given-internal-token-0123456789ab";
        String toolRunnerToken = "given-tool-runner-token-01234567";
        Up up = start(tmp, null, Map.of("COHORT_API_TOKEN", apiToken, "COHORT_INTERNAL_TOKEN", internalToken,
                "COHORT_TOOL_RUNNER_TOKEN", toolRunnerToken));
        try {
            Path runDir = awaitReady(up);
            List<ProcessHandle> children = new ArrayList<>(up.process().descendants().toList());
            assertThat(up.out()).anyMatch(l -> l.strip().startsWith("api token" + " ".repeat(12) + "from COHORT_API_TOKEN "))
                    .anyMatch(l -> l.strip().equals("service tokens" + " ".repeat(7) + "internal from COHORT_INTERNAL_TOKEN, "
                            + "tool runner from COHORT_TOOL_RUNNER_TOKEN"));
            assertThat(String.join("\n", up.out())).doesNotContain(apiToken).doesNotContain(internalToken)
                    .doesNotContain(toolRunnerToken);

            JsonNode run = Json.MAPPER.readTree(tmp.resolve("home").resolve("up.json").toFile());
            assertThat(run.get("apiToken").asText()).isEqualTo(apiToken);
            String lead = "http://127.0.0.1:" + up.ports()[2];
            String scheduler = "http://127.0.0.1:" + up.ports()[4];
            String toolRunner = "http://127.0.0.1:" + up.ports()[5];
            // the public API of the lead and the scheduler: the given token, nothing else
            assertThat(get(lead + "/api/v1/teams", apiToken)).isEqualTo(200);
            assertThat(get(lead + "/api/v1/teams", internalToken)).isEqualTo(401);
            assertThat(get(scheduler + "/api/v1/teams/default/crons", apiToken)).isEqualTo(200);
            assertThat(get(scheduler + "/api/v1/teams/default/crons", "wrong")).isEqualTo(401);
            // the lead's internal API: the given internal token
            assertThat(get(lead + "/internal/v1/teams/default/tasks", internalToken)).isEqualTo(200);
            assertThat(get(lead + "/internal/v1/teams/default/tasks", apiToken)).isEqualTo(401);
            // the tool runner: its own given token (404 = past the token check, no such job), not the internal one
            assertThat(get(toolRunner + "/internal/v1/background/bg_none", toolRunnerToken)).isEqualTo(404);
            assertThat(get(toolRunner + "/internal/v1/background/bg_none", internalToken)).isEqualTo(401);

            signal(up, "TERM");
            assertNothingLeft(tmp, up, children, runDir);
        } finally {
            kill(up);
        }
    }

    /**
     * Starts {@code cohort up} on free ports in {@code tmp/ws}, {@code COHORT_HOME=tmp/home}, with a temporary directory
     * of its own ({@code java.io.tmpdir}, readable by the {@code postgres} user the database runs as under root);
     * {@code extraArgs} are added to the command line.
     */
    static Up start(Path tmp, Path scenario, Map<String, String> env, String... extraArgs) throws IOException {
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path tmpDir = Files.createTempDirectory("cohort-up-it-");
        Files.setPosixFilePermissions(tmpDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        int[] ports = new int[7];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        Path repo = Path.of("..").toAbsolutePath().normalize();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmpDir, "-cp", System.getProperty("java.class.path"), "-Dcohort.home=" + repo,
                "dev.cohort.cli.Main", "up",
                "--kafka-port", "" + ports[0], "--pg-port", "" + ports[1], "--lead-port", "" + ports[2],
                "--teammate-port", "" + ports[3], "--scheduler-port", "" + ports[4], "--tool-runner-port", "" + ports[5],
                scenario == null ? "--scripted-model" : "--scripted-model=" + scenario));
        cmd.addAll(List.of(extraArgs));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workspace.toFile()).redirectErrorStream(true);
        pb.environment().put("COHORT_HOME", home.toString());
        pb.environment().put("COHORT_MODEL_PORT", "" + ports[6]);
        List.of("COHORT_API_TOKEN", "COHORT_INTERNAL_TOKEN", "COHORT_TOOL_RUNNER_TOKEN", "COHORT_DB_URL", "COHORT_SANDBOX", "COHORT_FAST_START")
                .forEach(pb.environment()::remove);
        pb.environment().putAll(env);
        Process process = pb.start();
        List<String> out = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.add(line);
                    CONSOLE.println("[cohort up] " + line);
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
        return new Up(process, out, ports, tmpDir);
    }

    /** Waits for "all four services ready"; returns the run directory named on the {@code logs} line. */
    static Path awaitReady(Up up) {
        long t0 = System.nanoTime();
        await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(200))
                .until(() -> !up.process().isAlive() || up.out().stream().anyMatch(l -> l.contains("all four services ready")));
        assertThat(up.process().isAlive()).as("cohort up is running; output:%n%s", String.join("\n", up.out())).isTrue();
        CONSOLE.printf("[cohort up] ready after %.1f s%n", (System.nanoTime() - t0) / 1e9);
        // sandboxed by default, and the start-up lines say with what
        assertThat(up.out()).anyMatch(l -> l.matches("cohort up: tool sandbox: (bubblewrap|unshare) \\(COHORT_SANDBOX=auto\\)"));
        String logsLine = up.out().stream().filter(l -> l.strip().startsWith("logs")).findFirst().orElseThrow();
        Path runDir = Path.of(logsLine.strip().substring(4).strip()).getParent();
        assertThat(runDir).exists().startsWith(up.tmpDir());
        return runDir;
    }

    /** Runs {@code cohort send} in this JVM, capturing what it prints. */
    static Sent send(String prompt, String leadUrl, String token) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        int rc;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            rc = new CommandLine(new SendCommand()).execute(prompt, "--url", leadUrl, "--token", token);
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return new Sent(rc, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
    }

    private int get(String url, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    static void signal(Up up, String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(up.process().pid())).start().waitFor();
        assertThat(up.process().waitFor(90, TimeUnit.SECONDS)).as("cohort up exits after SIG%s", signal).isTrue();
    }

    /** No child alive, no port listening, no run directory, no up.json, nothing in the temporary directory. */
    static void assertNothingLeft(Path tmp, Up up, List<ProcessHandle> children, Path runDir) throws IOException {
        await().atMost(Duration.ofSeconds(30)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
        for (int p : up.ports()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !listening(p));
        }
        assertThat(runDir).doesNotExist();
        assertThat(tmp.resolve("home").resolve("up.json")).doesNotExist();
        try (Stream<Path> left = Files.list(up.tmpDir())) {
            // zonky's extracted PostgreSQL binaries (when no system PostgreSQL is installed) are a cache kept on purpose
            assertThat(left.filter(f -> !f.getFileName().toString().equals("embedded-pg")).toList())
                    .as("left in cohort up's temporary directory").isEmpty();
        }
    }

    static void kill(Up up) {
        Process p = up.process();
        if (p.isAlive()) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        try (Stream<Path> s = Files.walk(up.tmpDir())) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // already gone
        }
    }

    static boolean listening(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.Ports;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Black box: {@code cohort up --scripted-model} as one process, {@code cohort chat} as a second one driven through
 * its stdin (no terminal, so no colours): a prompt whose scripted turn runs {@code bash rm -r build} → the chat asks
 * {@code Approve bash: rm -r build? [y/N]} → {@code y} → the command runs, the final text is printed; a prompt that
 * creates a task → the task line; SIGINT during a slow turn interrupts it, while idle it only says so, and neither ends
 * the chat; {@code /quit} exits 0. Then the management
 * commands against the same run: tasks, team (list, create, show), approve, cron, and their errors.
 */
class ChatCommandIT {

    /** The real stdout: output of the child processes must not land in what {@link #cli} captures. */
    private static final PrintStream CONSOLE = System.out;

    @TempDir
    Path tmp;

    private static final String SCENARIO = """
            {"rules":[
             {"name":"memory","match":{"agent":"default/lead","lastMessage":"^Existing memories:"},"reply":{"text":"[]"}},
             {"name":"rm","match":{"agent":"default/lead","lastMessage":"^clean the build$"},
              "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"rm -r build"}}]}},
             {"name":"after-rm","times":1,"match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"build cleaned"}},
             {"name":"plan","match":{"agent":"default/lead","lastMessage":"^plan the docs$"},
              "reply":{"toolCalls":[{"name":"create_task","arguments":{"subject":"write the docs"}}]}},
             {"name":"slow","match":{"agent":"default/lead","lastMessage":"^take your time$"},
              "reply":{"delayMs":4000,"toolCalls":[{"name":"bash","arguments":{"command":"echo never"}}]}},
             {"name":"after-plan","match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"planned"}}
            ]}""";

    @Test
    void chatStreamsAsksForApprovalAndQuitsAndTheManagementCommandsWork() throws Exception {
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        Path build = Files.createDirectories(workspace.resolve("build"));
        Files.writeString(build.resolve("out.o"), "x");
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path scenario = tmp.resolve("scenario.json");
        Files.writeString(scenario, SCENARIO);
        int[] ports = new int[7];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        Process up = start(workspace, home, ports[6], "up", "--kafka-port", "" + ports[0], "--pg-port", "" + ports[1],
                "--lead-port", "" + ports[2], "--teammate-port", "" + ports[3], "--scheduler-port", "" + ports[4],
                "--tool-runner-port", "" + ports[5], "--ready-timeout", "230", "--scripted-model=" + scenario);
        List<String> upOut = collect(up.getInputStream(), "[cohort up] ");
        Process chat = null;
        try {
            await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !up.isAlive() || upOut.stream().anyMatch(l -> l.contains("all four services ready")));
            assertThat(up.isAlive()).as("cohort up is running; output:%n%s", String.join("\n", upOut)).isTrue();
            JsonNode run = Json.MAPPER.readTree(home.resolve("up.json").toFile());
            String leadUrl = run.get("leadUrl").asText();
            String token = run.get("apiToken").asText();

            // ---- cohort chat, found through COHORT_HOME/up.json -----------------------------------------------
            chat = start(workspace, home, ports[6], "chat");
            List<String> out = collect(chat.getInputStream(), "[cohort chat] ");
            OutputStream stdin = chat.getOutputStream();
            awaitLine(out, chat, l -> l.startsWith("cohort chat · team default"));

            type(stdin, "clean the build");
            awaitLine(out, chat, l -> l.equals("Approve bash: rm -r build? [y/N]"));
            assertThat(out).anyMatch(l -> l.equals("→ bash rm -r build"));
            assertThat(build).exists();
            type(stdin, "y");
            awaitLine(out, chat, l -> l.equals("build cleaned"));
            awaitLine(out, chat, l -> l.startsWith("── turn completed"));
            assertThat(build).doesNotExist();
            assertThat(out).anyMatch(l -> l.startsWith("── turn started (cli)"))
                    .anyMatch(l -> l.startsWith("✓ approval ") && l.endsWith(" approved"))
                    .anyMatch(l -> l.startsWith("← bash"))
                    .noneMatch(l -> l.contains("\u001b["));

            type(stdin, "plan the docs");
            awaitLine(out, chat, l -> l.equals("planned"));
            await().atMost(Duration.ofSeconds(120)).until(() -> out.stream().filter(l -> l.startsWith("── turn completed")).count() == 2);
            assertThat(out).anyMatch(l -> l.equals("→ create_task write the docs"))
                    .anyMatch(l -> l.matches("\\+ task_\\d+ write the docs"));

            // Ctrl-C during a turn: the turn is interrupted at its next step, the chat goes on
            type(stdin, "take your time");
            await().atMost(Duration.ofSeconds(120)).until(() -> out.stream().filter(l -> l.startsWith("── turn started")).count() == 3);
            new ProcessBuilder("kill", "-INT", Long.toString(chat.pid())).start().waitFor();
            awaitLine(out, chat, l -> l.equals("^C interrupting the turn…"));
            assertThat(out).noneMatch(l -> l.startsWith("(the lead is busy"));
            awaitLine(out, chat, l -> l.startsWith("── turn ended: cancelled"));
            assertThat(out).noneMatch(l -> l.startsWith("← bash") && out.indexOf(l) > out.indexOf("^C interrupting the turn…"));
            assertThat(chat.isAlive()).isTrue();

            // Ctrl-C with no turn running: said so, the chat goes on
            new ProcessBuilder("kill", "-INT", Long.toString(chat.pid())).start().waitFor();
            awaitLine(out, chat, l -> l.contains("no turn is running"));
            assertThat(chat.isAlive()).isTrue();

            type(stdin, "/quit");
            assertThat(chat.waitFor(90, TimeUnit.SECONDS)).as("chat exits after /quit").isTrue();
            assertThat(chat.exitValue()).isZero();

            // ---- the management commands, in this JVM ------------------------------------------------------
            Result tasks = cli("tasks", "--url", leadUrl, "--token", token);
            assertThat(tasks.rc).isZero();
            assertThat(tasks.out.lines().findFirst().orElse("")).matches("ID\\s+STATUS\\s+OWNER\\s+BLOCKED BY\\s+SUBJECT");
            assertThat(tasks.out).containsPattern("task_\\d+\\s+pending\\s+write the docs");

            Result unknownTeam = cli("tasks", "--team", "nope", "--url", leadUrl, "--token", token);
            assertThat(unknownTeam.rc).isEqualTo(2);
            assertThat(unknownTeam.err).contains("cohort tasks: ").contains("nope").contains("(HTTP 404)");

            int nothing = Ports.free();
            Result down = cli("tasks", "--url", "http://127.0.0.1:" + nothing, "--token", token);
            assertThat(down.rc).isEqualTo(2);
            assertThat(down.err.strip()).isEqualTo("cohort tasks: cannot reach http://127.0.0.1:" + nothing
                    + " - is `./cohort up` running?");

            Result created = cli("team", "create", "docs", "--permission-mode", "plan", "--url", leadUrl, "--token", token);
            assertThat(created.rc).as(created.err).isZero();
            assertThat(created.out).contains("created team docs (permission mode plan");
            Result again = cli("team", "create", "docs", "--url", leadUrl, "--token", token);
            assertThat(again.rc).isEqualTo(2);
            assertThat(again.err).contains("already exists").contains("(HTTP 409)");
            Result teams = cli("team", "list", "--url", leadUrl, "--token", token);
            assertThat(teams.out).contains("PERMISSION MODE").containsPattern("(?m)^default\\s+default").containsPattern("(?m)^docs\\s+plan");

            // the team's agents: today's lead-service says name, role and phase (the rest prints as -); an unknown team
            // is the problem detail with exit code 2
            Result agents = cli("team", "show", "--url", leadUrl, "--token", token);
            assertThat(agents.rc).as(agents.err).isZero();
            assertThat(agents.out.lines().findFirst().orElse("")).matches("NAME\\s+ROLE\\s+PHASE\\s+CURRENT TASK\\s+TOKENS\\s+COST\\s+REPLICA");
            assertThat(agents.out).containsPattern("(?m)^lead\\s+lead\\s+(idle|working)\\s+");
            Result noTeam = cli("team", "show", "--team", "nope", "--url", leadUrl, "--token", token);
            assertThat(noTeam.rc).isEqualTo(2);
            assertThat(noTeam.out).isEmpty();
            assertThat(noTeam.err.strip()).isEqualTo("cohort team show: unknown team \"nope\" (HTTP 404)");
            Result leadDown = cli("team", "show", "--url", "http://127.0.0.1:" + nothing, "--token", token);
            assertThat(leadDown.rc).isEqualTo(2);
            assertThat(leadDown.err.strip()).isEqualTo("cohort team show: cannot reach http://127.0.0.1:" + nothing
                    + " - is `./cohort up` running?");

            Result approvals = cli("approve", "--url", leadUrl, "--token", token);
            assertThat(approvals.rc).isZero();
            assertThat(approvals.out).contains("(no pending approval requests)");
            Result noSuch = cli("approve", "00000000-0000-0000-0000-000000000000", "--url", leadUrl, "--token", token);
            assertThat(noSuch.rc).isEqualTo(2);
            assertThat(noSuch.err).contains("unknown approval");

            String sched = run.get("schedulerUrl").asText();
            Result add = cli("cron", "add", "0 9 * * 1", "weekly report", "--scheduler-url", sched, "--token", token);
            assertThat(add.rc).as(add.err).isZero();
            String jobId = add.out.strip().split("\\s+")[1];
            assertThat(jobId).startsWith("cron_");
            Result list = cli("cron", "list", "--scheduler-url", sched, "--token", token);
            assertThat(list.out).contains(jobId).contains("weekly report");
            Result bad = cli("cron", "add", "5/15 * * * *", "x", "--scheduler-url", sched, "--token", token);
            assertThat(bad.rc).isEqualTo(2);
            assertThat(bad.err).contains("(HTTP 400)");
            assertThat(cli("cron", "rm", jobId, "--scheduler-url", sched, "--token", token).rc).isZero();
            assertThat(cli("cron", "list", "--scheduler-url", sched, "--token", token).out).doesNotContain(jobId);
        } finally {
            if (chat != null && chat.isAlive()) {
                chat.destroyForcibly();
            }
            new ProcessBuilder("kill", "-INT", Long.toString(up.pid())).start().waitFor();
            if (!up.waitFor(90, TimeUnit.SECONDS)) {
                up.descendants().forEach(ProcessHandle::destroyForcibly);
                up.destroyForcibly();
            }
        }
    }

    private Process start(Path workspace, Path home, int modelPort, String... args) throws Exception {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dcohort.home=" + repo, "dev.cohort.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workspace.toFile()).redirectErrorStream(true);
        pb.environment().put("COHORT_HOME", home.toString());
        pb.environment().put("COHORT_MODEL_PORT", "" + modelPort);
        pb.environment().remove("COHORT_API_TOKEN");
        pb.environment().remove("COHORT_URL");
        pb.environment().remove("COHORT_DB_URL");
        return pb.start();
    }

    private static List<String> collect(InputStream in, String label) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    CONSOLE.println(label + line);
                }
            } catch (Exception ignored) {
                // process ended
            }
        });
        return lines;
    }

    private static void awaitLine(List<String> out, Process p, Predicate<String> line) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> out.stream().anyMatch(line) || !p.isAlive());
        assertThat(out).as("output so far").anyMatch(line);
    }

    private static void type(OutputStream stdin, String line) throws Exception {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    record Result(int rc, String out, String err) {
    }

    /** Runs a command in this JVM with stdout and stderr captured. */
    private static synchronized Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream so = System.out;
        PrintStream se = System.err;
        int rc;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8); PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            rc = new CommandLine(new Main()).execute(args);
        } finally {
            System.setOut(so);
            System.setErr(se);
        }
        Result r = new Result(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println("[cli " + String.join(" ", args) + "] rc=" + rc + "\n" + r.out + r.err);
        return r;
    }
}

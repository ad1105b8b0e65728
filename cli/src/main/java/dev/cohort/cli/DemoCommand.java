package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.Ports;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort demo}: a canned session with the scripted model, no key needed. Starts its own {@code cohort up}
 * (free ports, a temporary workspace with a {@code build/} directory, its own {@code COHORT_HOME} so a running
 * {@code up} is not disturbed), sends four prompts — plan tasks with dependencies, do the first one, clean the build
 * (an approval, answered yes), list the workspace — shows every event as {@code cohort chat} would, prints the
 * board and stops everything ({@code --keep}: leaves the team running for the dashboard until Ctrl-C or SIGTERM, and
 * prints a one-time login link to it).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Run a scripted session end to end with the scripted model (no API key needed).",
            "Starts its own services on free ports in a temporary workspace, and stops them afterwards."})
public final class DemoCommand implements Callable<Integer> {

    static final List<String> PROMPTS = List.of(
            "Plan a small REST API for users: a schema, the endpoints and the docs.",
            "Do the schema task.",
            "Clean the build directory.",
            "Show me the workspace.");

    @Option(names = "--ready-timeout", description = "Seconds to wait for the services (default ${DEFAULT-VALUE}).")
    int readyTimeout = 240;

    @Option(names = "--keep", description = {"Leave the demo team running afterwards, to look at it in the dashboard;",
        "Ctrl-C stops the services. The temporary workspace and the services' log are kept (the path is printed)."})
    boolean keep;

    /** Environment for the demo's {@code cohort up} beyond its own (the AOT training's {@code COHORT_AOT=record}). */
    Map<String, String> extraEnv = Map.of();

    private Style style;
    private EventFormatter formatter;

    @Override
    public Integer call() throws Exception {
        style = Style.detect();
        formatter = new EventFormatter(style);
        Path dir = Files.createTempDirectory("cohort-demo-");
        Path ws = Files.createDirectories(dir.resolve("workspace"));
        Files.createDirectories(ws.resolve("build"));
        Files.writeString(ws.resolve("build/app.jar"), "not really a jar\n");
        Files.writeString(ws.resolve("README.md"), "# users API\n");
        Path home = Files.createDirectories(dir.resolve("home"));
        Path scenario = dir.resolve("scenario.json");
        try (InputStream in = DemoCommand.class.getResourceAsStream("demo-scenario.json")) {
            Files.write(scenario, in.readAllBytes());
        }
        Path log = dir.resolve("up.log");

        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Dcohort.home=" + System.getProperty("cohort.home", "."), "dev.cohort.cli.Main", "up"));
        for (String flag : List.of("--kafka-port", "--pg-port", "--lead-port", "--teammate-port", "--scheduler-port",
                "--tool-runner-port")) {
            cmd.add(flag);
            cmd.add(Integer.toString(Ports.free()));
        }
        cmd.addAll(List.of("--workspace", ws.toString(), "--ready-timeout", Integer.toString(readyTimeout),
                "--scripted-model=" + scenario));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ws.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("COHORT_HOME", home.toString());
        // a demo runs for a minute: a quicker start beats steady-state speed (unless the caller chose otherwise)
        pb.environment().putIfAbsent("COHORT_FAST_START", "1");
        pb.environment().put("COHORT_MODEL_PORT", Integer.toString(Ports.free()));
        pb.environment().putAll(extraEnv);
        for (String v : List.of("COHORT_API_TOKEN", "COHORT_URL", "COHORT_SCHEDULER_URL", "COHORT_DB_URL")) {
            pb.environment().remove(v);
        }
        System.out.println(style.bold("cohort demo") + style.dim(" · scripted model, workspace " + ws));
        System.out.println(style.dim("starting Kafka, PostgreSQL and the four services (about half a minute)…"));
        long t0 = System.nanoTime();
        Process up = pb.start();
        Thread stopper = new Thread(() -> stop(up), "cohort-demo-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        int rc = 1;
        try {
            if (!awaitReady(up, log, home)) {
                System.err.println("cohort demo: the services did not start; their output:");
                System.err.println(Files.exists(log) ? Files.readString(log) : "(none)");
                return 1;
            }
            System.out.printf(style.dim("ready after %.0f s%n%n"), (System.nanoTime() - t0) / 1e9);
            JsonNode run = Json.MAPPER.readTree(home.resolve("up.json").toFile());
            ApiClient api = ApiClient.lead(run.path("leadUrl").asText(), run.path("apiToken").asText());
            AtomicLong seq = new AtomicLong();
            rc = 0;
            for (String prompt : PROMPTS) {
                System.out.println(style.bold("you› ") + prompt);
                if (!turn(api, prompt, seq)) {
                    rc = 1;
                }
                System.out.println();
            }
            System.out.println(style.bold("the task board (cohort tasks):"));
            TasksCommand.table(api.get("/api/v1/teams/default/tasks")).forEach(System.out::println);
            System.out.println();
            if (keep) {
                // the demo team stays up for the dashboard: a one-time login link (the token itself is never printed)
                DashboardCommand.Link link = DashboardCommand.create(api, null);
                System.out.println(style.bold("dashboard: ") + link.url());
                System.out.println(style.dim(link.note() + "; a new one: COHORT_HOME=" + home + " ./cohort dashboard"));
                System.out.println(style.dim("the demo team keeps running; Ctrl-C stops it."));
                up.waitFor();
                return rc;
            }
            System.out.println(style.dim("next: `./cohort up` in your project, then `./cohort chat` in another terminal."));
            return rc;
        } catch (IOException e) {
            System.err.println("cohort demo: " + ApiCommand.describe(e));
            return 1;
        } finally {
            System.out.println(style.dim("stopping the services…"));
            stop(up);
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
            if (keep) {
                System.out.println(style.dim("kept " + dir));
            } else {
                deleteTree(dir);
            }
        }
    }

    /** True once {@code up} says all four services are ready; false when it ends first or the timeout passes. */
    private boolean awaitReady(Process up, Path log, Path home) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(readyTimeout + 10L);
        while (System.nanoTime() < deadline) {
            if (!up.isAlive()) {
                return false;
            }
            if (Files.exists(log) && Files.readString(log).contains("all four services ready")
                    && Files.exists(home.resolve("up.json"))) {
                return true;
            }
            Thread.sleep(250);
        }
        return false;
    }

    /** One prompt: its events as chat shows them, approvals answered yes; true when the turn completed. */
    private boolean turn(ApiClient api, String prompt, AtomicLong seq) throws IOException, InterruptedException {
        String id = api.post("/api/v1/teams/default/prompts", Map.of("text", prompt, "source", "cli")).path("id").asText();
        AtomicReference<String> status = new AtomicReference<>();
        List<IOException> failures = new ArrayList<>();
        for (int attempt = 0; status.get() == null && attempt < 5; attempt++) {
            api.stream("default", seq.get(), e -> {
                seq.set(Math.max(seq.get(), e.path("seq").asLong()));
                JsonNode d = e.path("data");
                String type = e.path("type").asText();
                if ("approval_requested".equals(type)) {
                    String tool = d.path("tool").asText();
                    String call = EventFormatter.approvalCall(tool, d.get("args"));
                    ChatCommand.Pending asked = new ChatCommand.Pending(d.path("approvalId").asText(), e.path("agent").asText("lead"), tool, call);
                    System.out.println(ChatCommand.question(style, asked) + "y" + style.dim("   (the demo answers)"));
                    try {
                        api.post("/api/v1/teams/default/approvals/" + ApiClient.seg(d.path("approvalId").asText()),
                                Map.of("approve", true));
                    } catch (IOException ex) {
                        failures.add(ex);
                        return true;
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return true;
                    }
                    return false;
                }
                formatter.format(e).forEach(System.out::println);
                if ("turn_completed".equals(type) && id.equals(Event.promptIdOf(e))) {
                    status.set(d.path("status").asText("completed"));
                    return true;
                }
                return false;
            });
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
        }
        return "completed".equals(status.get());
    }

    private static void stop(Process up) {
        if (!up.isAlive()) {
            return;
        }
        up.destroy(); // SIGTERM: `up` stops the services, the broker and the database
        try {
            if (!up.waitFor(90, TimeUnit.SECONDS)) {
                up.descendants().forEach(ProcessHandle::destroyForcibly);
                up.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}

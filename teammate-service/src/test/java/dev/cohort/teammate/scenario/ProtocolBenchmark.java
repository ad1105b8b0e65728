package dev.cohort.teammate.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.function.BooleanSupplier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/**
 * The shutdown-handshake benchmark — a main class, not a test (nothing runs it in
 * {@code ./mvnw verify}); how to run it is in {@code teammate-service/README.md} ("Benchmarks: the shutdown
 * handshake"). It starts the team as real processes ({@link TeamStack}: tool runner, lead-service, one
 * teammate-service replica; broker, PostgreSQL and the zero-latency scripted model in this JVM) and, per teammate,
 * has the lead call {@code request_shutdown} and prints the handshake's duration, {@code decided_at - created_at} of
 * the request row (both the lead's database clock: the request recorded → the teammate's {@code shutdown_response}
 * recorded by the lead; in between the publish, the teammate's consumer, its host's answer and the lead's consumer),
 * p50/p90/p99:
 * <ol>
 *   <li><b>idle</b> teammates (answered by the host, no model call);</li>
 *   <li><b>working</b> teammates, each in a loop of {@code sleep 0.2} bash steps: answered at the next step boundary,
 *       so the figure includes what remains of the step in flight (at most 200 ms plus the tool runner's round
 *       trip).</li>
 * </ol>
 *
 * <p>Options ({@code --name=value}): {@code idle} (20), {@code working} (20).
 */
public final class ProtocolBenchmark {

    private static final String TEAM = "pbench";
    private static final String STEP = "sleep 0.2; echo stepped";

    private ProtocolBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (String a : args) {
            String[] kv = a.replaceFirst("^--", "").split("=", 2);
            opts.put(kv[0], kv.length > 1 ? kv[1] : "true");
        }
        int idle = Integer.parseInt(opts.getOrDefault("idle", "20"));
        int working = Integer.parseInt(opts.getOrDefault("working", "20"));
        Map<String, String> env = new HashMap<>();
        env.put("COHORT_TEAMMATE_MAX_PER_TEAM", String.valueOf(idle + working + 10));
        env.put("COHORT_TEAMMATE_MAX_LIVE_PER_TEAM", String.valueOf(idle + working + 10));
        try (TeamStack stack = TeamStack.start(1, env)) {
            try {
                stack.createTeam(TEAM);
                stack.loadRules(rules(idle, working));
                System.out.printf("load average at start: %s%n", loadAverage());
                print("shutdown handshake, idle teammate", handshakes(stack, "i", idle, false));
                print("shutdown handshake, working teammate (" + STEP + " steps)", handshakes(stack, "w", working, true));
                System.out.printf("load average at end: %s%n", loadAverage());
            } catch (Throwable t) {
                System.out.println(stack.logs());
                throw t;
            }
        }
    }

    private static String rules(int idle, int working) {
        List<String> r = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= idle; i++) {
            names.add("i" + i);
        }
        for (int i = 1; i <= working; i++) {
            names.add("w" + i);
        }
        for (String name : names) {
            r.add("{\"name\":\"lead-spawn\",\"match\":{\"agent\":\"pbench/lead\",\"lastRole\":\"user\",\"lastMessage\":"
                    + "\"^spawn " + name + "$\"},\"reply\":{\"toolCalls\":[{\"name\":\"spawn_teammate\",\"arguments\":{"
                    + "\"name\":\"" + name + "\",\"role\":\"bench\",\"prompt\":\"go\"}}]}}");
            r.add("{\"name\":\"lead-stop\",\"match\":{\"agent\":\"pbench/lead\",\"lastRole\":\"user\",\"lastMessage\":"
                    + "\"^stop " + name + "$\"},\"reply\":{\"toolCalls\":[{\"name\":\"request_shutdown\",\"arguments\":{"
                    + "\"teammate\":\"" + name + "\"}}]}}");
        }
        r.add("""
                {"name":"lead-after-tool","match":{"agent":"pbench/lead","lastRole":"tool"},"reply":{"text":"ok"}}""");
        r.add("""
                {"name":"lead-other","match":{"agent":"pbench/lead"},"reply":{"text":"ok"}}""");
        r.add("""
                {"name":"working","match":{"agentRegex":"^pbench/w"},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"%s"}}]}}"""
                .formatted(STEP));
        r.add("""
                {"name":"idle","match":{"agentRegex":"^pbench/i"},"reply":{"text":"hi"}}""");
        return String.join(",", r);
    }

    /** Spawns each teammate, waits until it is idle (or in its first step), has the lead ask it to shut down. */
    private static List<Double> handshakes(TeamStack stack, String prefix, int n, boolean working) {
        List<Double> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String name = prefix + i;
            stack.prompt(TEAM, "spawn " + name);
            if (working) {
                waitFor(Duration.ofMinutes(2), () -> stack.events(TEAM).stream().anyMatch(e -> name.equals(e.path("agent")
                        .asText()) && "tool_call_started".equals(e.path("type").asText())));
            } else {
                waitFor(Duration.ofMinutes(2), () -> "idle".equals(status(stack, name)));
            }
            waitFor(Duration.ofMinutes(2), () -> "idle".equals(status(stack, "lead")) && (working
                    || stack.model().requests().stream().anyMatch(r -> "pbench/lead".equals(r.agent())
                    && TeamScenariosIT.newInputs(r).stream().anyMatch(m -> m.contains("from=\"" + name + "\" type=\"result\"")))));
            stack.prompt(TEAM, "stop " + name);
            JsonNode[] row = new JsonNode[1];
            waitFor(Duration.ofMinutes(2), () -> {
                JsonNode all = TeamStack.json(stack.get("/api/v1/teams/" + TEAM + "/protocols?type=shutdown").body());
                for (JsonNode p : all) {
                    if (name.equals(p.path("target").asText()) && !"pending".equals(p.path("status").asText())) {
                        row[0] = p;
                        return true;
                    }
                }
                return false;
            });
            if (!"approved".equals(row[0].path("status").asText())) {
                throw new IllegalStateException(name + "'s shutdown ended " + row[0]);
            }
            out.add(Duration.between(Instant.parse(row[0].path("createdAt").asText()),
                    Instant.parse(row[0].path("decidedAt").asText())).toNanos() / 1e6);
            waitFor(Duration.ofMinutes(2), () -> "shutdown".equals(status(stack, name)));
            // the lead has read the teammate's shutdown result and is idle, so the next prompt is a turn of its own
            waitFor(Duration.ofMinutes(2), () -> stack.model().requests().stream().anyMatch(r -> "pbench/lead".equals(
                    r.agent()) && TeamScenariosIT.newInputs(r).stream().anyMatch(m -> m.contains("from=\"" + name
                    + "\" type=\"result\"") && m.contains("status=\"shutdown\""))));
            waitFor(Duration.ofMinutes(2), () -> "idle".equals(status(stack, "lead")));
        }
        return out;
    }

    private static String status(TeamStack stack, String name) {
        JsonNode agents = TeamStack.json(stack.get("/api/v1/teams/" + TEAM + "/agents").body());
        return StreamSupport.stream(agents.spliterator(), false).filter(a -> name.equals(a.path("name").asText()))
                .map(a -> a.path("status").asText()).findFirst().orElse(null);
    }

    private static void print(String what, List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        System.out.printf("%s: n=%d p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n", what, sorted.size(),
                pct(sorted, 50), pct(sorted, 90), pct(sorted, 99), sorted.getLast());
    }

    private static double pct(List<Double> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    private static void waitFor(Duration max, BooleanSupplier cond) {
        Instant end = Instant.now().plus(max);
        while (!cond.getAsBoolean()) {
            if (Instant.now().isAfter(end)) {
                throw new IllegalStateException("condition not met within " + max);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}

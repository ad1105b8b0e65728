package dev.cohort.reliability;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The real work a fault hits, one team per fault so each row's invariants read only its own rows: the lead's turn runs
 * a bash call ({@code <team>-a}) that waits for a gate file, then creates two tasks and spawns teammate {@code w};
 * {@code w} auto-claims both tasks, runs one bash call for each ({@code <team>-j1} waits for a second gate) and
 * completes them; its results wake the lead. Every bash call has a fixed call id and appends that id to
 * {@code ran.log} in its working directory, so "how often did this call run" is a count of lines, independent of
 * any log. The gates let the suite inject a fault while a call is in flight, without any timing.
 */
final class Workload {

    static final String TEAMMATE = "w";

    final String team;

    Workload(String team) {
        this.team = team;
    }

    String leadCall() {
        return team + "-a";
    }

    String job1Call() {
        return team + "-j1";
    }

    String job2Call() {
        return team + "-j2";
    }

    List<String> calls() {
        return List.of(leadCall(), job1Call(), job2Call());
    }

    /** The scripted model's rules for this team (matched on the agent ids {@code <team>/lead}, {@code <team>/w}). */
    String rules() {
        String lead = team + "/lead";
        String w = team + "/" + TEAMMATE;
        List<ObjectNode> rules = new ArrayList<>();
        rules.add(rule(team + "-lead-result", Map.of("agent", lead, "lastMessage", "from=\"" + TEAMMATE + "\""), text("noted")));
        rules.add(rule(team + "-lead-started", Map.of("agent", lead, "lastRole", "tool", "lastMessage", "teammate '" + TEAMMATE + "'"),
                text(team + ": work started")));
        rules.add(rule(team + "-lead-work", Map.of("agent", lead, "lastRole", "user", "lastMessage", "work-order " + team),
                calls(bash(leadCall(), "gate-a"))));
        rules.add(rule(team + "-lead-plan", Map.of("agent", lead, "lastRole", "tool"), calls(
                call(null, "create_task", Map.of("subject", team + " job-1", "description", "the first job")),
                call(null, "create_task", Map.of("subject", team + " job-2", "description", "the second job")),
                call(null, "spawn_teammate", Map.of("name", TEAMMATE, "role", "worker", "prompt", "stand by for tasks")))));
        rules.add(rule(team + "-lead-probe", Map.of("agent", lead, "lastRole", "user", "lastMessage", "probe " + team),
                text("probe ok")));
        rules.add(rule(team + "-lead-any", Map.of("agent", lead), text("ok")));
        rules.add(rule(team + "-w-job1", Map.of("agent", w, "lastRole", "user", "lastMessage",
                "^<auto-claimed>task_\\d+: " + team + " job-1"), calls(bash(job1Call(), "gate-b"),
                call(null, "complete_task", Map.of("result", "job-1 done")))));
        rules.add(rule(team + "-w-job2", Map.of("agent", w, "lastRole", "user", "lastMessage",
                "^<auto-claimed>task_\\d+: " + team + " job-2"), calls(bash(job2Call(), null),
                call(null, "complete_task", Map.of("result", "job-2 done")))));
        rules.add(rule(team + "-w-ping", Map.of("agent", w, "lastMessage", "ping " + team), text("pong")));
        rules.add(rule(team + "-w-any", Map.of("agent", w), text("w: done")));
        return join(rules);
    }

    /** Rule objects as the comma-separated list {@link RelStack#appendRules} takes. */
    static String join(List<ObjectNode> rules) {
        StringBuilder b = new StringBuilder();
        for (ObjectNode r : rules) {
            b.append(b.isEmpty() ? "" : ",").append(Json.write(r));
        }
        return b.toString();
    }

    static ObjectNode rule(String name, Map<String, String> match, ObjectNode reply) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("name", name);
        ObjectNode m = r.putObject("match");
        match.forEach(m::put);
        r.set("reply", reply);
        return r;
    }

    static ObjectNode text(String t) {
        return Json.MAPPER.createObjectNode().put("text", t);
    }

    static ObjectNode calls(ObjectNode... calls) {
        ObjectNode reply = Json.MAPPER.createObjectNode();
        ArrayNode a = reply.putArray("toolCalls");
        for (ObjectNode c : calls) {
            a.add(c);
        }
        return reply;
    }

    static ObjectNode call(String id, String name, Map<String, String> args) {
        ObjectNode c = Json.MAPPER.createObjectNode();
        if (id != null) {
            c.put("id", id);
        }
        c.put("name", name);
        ObjectNode a = c.putObject("arguments");
        args.forEach(a::put);
        return c;
    }

    /** {@code echo <id> >> ran.log}, then (with a gate) wait until the gate file exists: the call stays in flight. */
    private static ObjectNode bash(String id, String gate) {
        String cmd = "echo " + id + " >> ran.log" + (gate == null ? "" : "; while [ ! -f " + gate + " ]; do sleep 0.2; done")
                + "; echo " + id + "-through";
        return call(id, "bash", Map.of("command", cmd));
    }

    // ---- driving it

    /** Creates the team, loads its rules and sends the work order; the prompt's id. */
    String begin(RelStack stack) {
        stack.appendRules(rules());
        HttpResponse<String> r = stack.post(RelStack.Service.LEAD, "/api/v1/teams", Map.of("id", team));
        if (r.statusCode() != 201) {
            throw new IllegalStateException("creating team " + team + ": " + r.statusCode() + " " + r.body());
        }
        return prompt(stack, "work-order " + team);
    }

    String prompt(RelStack stack, String text) {
        HttpResponse<String> r = stack.post(RelStack.Service.LEAD, "/api/v1/teams/" + team + "/prompts", Map.of("text", text));
        if (r.statusCode() != 202) {
            throw new IllegalStateException("prompt to " + team + ": " + r.statusCode() + " " + r.body());
        }
        return RelStack.json(r.body()).path("id").asText();
    }

    /** Every {@code ran.log} under the team's workspace (a teammate may work in its task's worktree). */
    List<Path> ranLogs(RelStack stack) {
        Path root = stack.teamWorkspace(team);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.getFileName().toString().equals("ran.log")).toList();
        } catch (IOException e) {
            return List.of(); // a worktree removed while walking: the next poll sees the rest
        }
    }

    /** How many times call {@code id} ran (its lines in every ran.log). */
    long runs(RelStack stack, String id) {
        long n = 0;
        for (Path p : ranLogs(stack)) {
            try {
                n += Files.readAllLines(p).stream().filter(id::equals).count();
            } catch (IOException e) {
                // a file that went away: counted on the next poll
            }
        }
        return n;
    }

    /** The directory whose ran.log holds {@code id}, once it ran. */
    Optional<Path> dirOf(RelStack stack, String id) {
        for (Path p : ranLogs(stack)) {
            try {
                if (Files.readAllLines(p).contains(id)) {
                    return Optional.of(p.getParent());
                }
            } catch (IOException e) {
                // gone
            }
        }
        return Optional.empty();
    }

    /** Opens the gate {@code gate} next to the ran.log where {@code id} ran. */
    void open(RelStack stack, String id, String gate) {
        Path dir = dirOf(stack, id).orElse(stack.teamWorkspace(team));
        try {
            Files.writeString(dir.resolve(gate), "open\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void openLeadGate(RelStack stack) {
        open(stack, leadCall(), "gate-a");
    }

    void openTeammateGate(RelStack stack) {
        open(stack, job1Call(), "gate-b");
    }
}

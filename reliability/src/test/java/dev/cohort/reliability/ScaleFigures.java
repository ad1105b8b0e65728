package dev.cohort.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.Reply;
import dev.cohort.reliability.RelStack.Service;
import java.net.http.HttpRequest;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.TreeMap;

/**
 * The scale run on the suite's stack: {@code leadReplicas} lead-service and {@code teammateReplicas}
 * teammate-service replicas; {@code teams} teams, each sent {@code prompts} prompts at once; each team's lead builds a
 * board of {@code tasks / teams} tasks in layers (every task after the first layer blocked by two of the layer before,
 * by the ids the lead's earlier {@code create_task} calls returned: a {@link dev.cohort.devstack.model.ScriptedModelServer#respond
 * responder}), then spawns its share of {@code teammates}; the teammates auto-claim and complete every task; then each
 * lead messages each of its teammates. Figures: throughput, p50/p99 of prompt → first event, lead → teammate message,
 * claim; heap per replica; database transactions and CPU time per agent step. Facts are asserted (every prompt
 * answered, every task completed once, after its blockers); speed never is.
 */
final class ScaleFigures {

    record Figure(String name, String value, String how) {
    }

    /** The run's shape. */
    record Shape(int leadReplicas, int teams, int prompts, int teammateReplicas, int teammates, int tasks) {
        int tasksPerTeam() {
            return tasks / teams;
        }

        int teammatesOf(int team) {
            return teammates / teams + (team <= teammates % teams ? 1 : 0);
        }

        String text() {
            return leadReplicas + " lead-service replicas × " + teams + " teams (" + prompts + " concurrent prompts each), "
                    + teammateReplicas + " teammate-service replicas × " + teammates + " teammates, " + tasks + " tasks with dependencies";
        }
    }

    /** The full suite's shape. */
    static final Shape FULL = new Shape(3, 20, 3, 3, 50, 500);
    /** Tasks per layer: each task after the first layer waits for two of the layer before. */
    static final int WIDTH = 5;
    private static final Pattern CREATED = Pattern.compile("Created (task_\\d+): (s\\d+) L(\\d+)-(\\d+)");
    private static final Pattern CLAIMED = Pattern.compile("<auto-claimed>(task_\\d+): ");

    /** Outcome: the figures and the facts that must hold. */
    record Result(List<Figure> figures, List<Invariants.Check> checks) {
    }

    static String team(int t) {
        return String.format("s%02d", t);
    }

    static Result run(RelStack stack, Shape shape) throws Exception {
        long t0 = System.nanoTime();
        stack.ensureReplicas(Service.LEAD, shape.leadReplicas());
        stack.ensureReplicas(Service.TEAMMATE, shape.teammateReplicas());
        double bootSecs = (System.nanoTime() - t0) / 1e9;
        List<String> ids = new ArrayList<>();
        for (int t = 1; t <= shape.teams(); t++) {
            ids.add(team(t));
        }
        stack.model.respond("scale-lead", "s\\d+/lead", body -> lead(body, shape));
        stack.model.respond("scale-teammate", "s\\d+/w\\d+", ScaleFigures::teammate);
        for (String team : ids) {
            int code = stack.post(Service.LEAD, "/api/v1/teams", Map.of("id", team)).statusCode();
            if (code != 201) {
                throw new IllegalStateException("team " + team + ": HTTP " + code);
            }
        }
        Map<Integer, Long> cpuBefore = cpu(stack);
        long xactBefore = xacts(stack);
        int requestsBefore = stack.model.requests().size();
        Map<String, Instant> sentAt = new ConcurrentHashMap<>();
        Instant start = Instant.now();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        List<String> lbs = liveUrls(stack, Service.LEAD);
        for (int t = 0; t < ids.size(); t++) {
            String team = ids.get(t);
            for (int p = 1; p <= shape.prompts(); p++) {
                String text = p == 1 ? "build " + team : "status " + team + " " + p;
                int n = t * shape.prompts() + p;
                all.add(CompletableFuture.runAsync(() -> {
                    Instant before = Instant.now();
                    // any replica takes a prompt (it only produces to Kafka): spread over all of them, as a load balancer would
                    String id = prompt(stack, lbs.get(n % lbs.size()), team, text);
                    sentAt.put(id, before);
                }));
            }
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        int totalTasks = shape.tasksPerTeam() * shape.teams();
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (System.nanoTime() < deadline && (completedTasks(stack, ids) < totalTasks || answered(stack, ids, sentAt.keySet()) < sentAt.size())) {
            Thread.sleep(1000);
        }
        Instant boardDone = Instant.now();
        // lead → teammate messages: each lead messages each of its teammates at once
        Instant pingAt = Instant.now();
        for (String team : ids) {
            sentAt.put(prompt(stack, stack.url(Service.LEAD), team, "ping " + team), Instant.now());
        }
        while (System.nanoTime() < deadline && pongs(stack, pingAt) < shape.teammates()) {
            Thread.sleep(500);
        }
        while (System.nanoTime() < deadline && answered(stack, ids, sentAt.keySet()) < sentAt.size()) {
            Thread.sleep(500);
        }
        Instant end = Instant.now();
        List<RecordedRequest> reqs = stack.model.requests();
        int steps = reqs.size() - requestsBefore;
        long xacts = xacts(stack) - xactBefore;
        Map<Integer, Long> cpuAfter = cpu(stack);
        long cpuTicks = 0;
        for (var e : cpuAfter.entrySet()) {
            cpuTicks += e.getValue() - cpuBefore.getOrDefault(e.getKey(), 0L);
        }

        // ---- facts from the stores
        List<Invariants.Check> checks = new ArrayList<>();
        long answeredPrompts = answered(stack, ids, sentAt.keySet());
        checks.add(new Invariants.Check("every prompt answered", answeredPrompts == sentAt.size(),
                answeredPrompts + " of " + sentAt.size() + " prompts listed by a turn_completed"));
        TaskFacts tf = taskFacts(stack, ids);
        checks.add(new Invariants.Check("every task completed once, after its blockers", tf.problems.isEmpty() && tf.completed == totalTasks,
                tf.completed + " of " + totalTasks + " tasks completed (" + tf.edges + " dependencies); "
                        + (tf.problems.isEmpty() ? "none claimed before its blockers completed, none completed twice, one owner each"
                        : String.join("; ", tf.problems.subList(0, Math.min(5, tf.problems.size()))))));
        Map<String, Integer> leadSpread = spread(stack, "SELECT owner FROM lead.agents WHERE team = ANY (?) AND name = 'lead'", ids, true);
        Map<String, Integer> mateSpread = spread(stack, "SELECT owner FROM teammate.agents WHERE team = ANY (?)", ids, false);
        int mates = mateSpread.values().stream().mapToInt(Integer::intValue).sum();
        checks.add(new Invariants.Check("the work spread over the replicas", leadSpread.size() == shape.leadReplicas()
                && mateSpread.size() == shape.teammateReplicas() && mates == shape.teammates(),
                "leads per lead-service replica " + leadSpread + "; teammates per teammate-service replica " + mateSpread));

        // ---- figures
        List<Long> toFirst = firstEvents(stack, ids, sentAt);
        List<Long> claim = tf.claimMs;
        List<Long> msg = messageLatency(reqs, pingAt);
        double boardSecs = Duration.between(start, boardDone).toMillis() / 1000.0;
        List<Figure> f = new ArrayList<>();
        f.add(new Figure("shape", shape.text(), "replicas started on free ports in " + String.format("%.0f", bootSecs)
                + " s; leads build the boards (" + shape.tasksPerTeam() / WIDTH + " layers of " + WIDTH + "), teammates auto-claim"));
        f.add(new Figure("throughput", String.format("%.1f tasks/s, %.1f agent steps/s (%d tasks and %d prompts in %.1f s)",
                tf.completed / Math.max(boardSecs, 0.001), (reqs.size() - requestsBefore) / Math.max(Duration.between(start, end).toMillis() / 1000.0, 0.001),
                tf.completed, shape.teams() * shape.prompts(), boardSecs), "first prompt POST → last task completed; steps = model requests"));
        f.add(new Figure("prompt → first event (turn_started)", pct(toFirst, 50) + " ms p50, " + pct(toFirst, 99) + " ms p99 ("
                + toFirst.size() + " prompts that started a turn; the others were injected into a running one)",
                "client time before the POST (spread over the lead replicas) → the stored event's ts"));
        f.add(new Figure("lead → teammate message", pct(msg, 50) + " ms p50, " + pct(msg, 99) + " ms p99 (" + msg.size() + " messages)",
                "the lead's model request answered with send_message → the teammate's model request carrying it (the scripted model's clock)"));
        f.add(new Figure("claim (task and teammate free → claimed)", pct(tf.freeClaimMs, 50) + " ms p50, " + pct(tf.freeClaimMs, 99)
                + " ms p99 (" + tf.freeClaimMs.size() + " claims after the claimer's first)", "lead.tasks: claimed_at − the later of the"
                + " last blocker's completed_at and the claimer's previous completed_at (the database's clock)"));
        f.add(new Figure("task unblocked → claimed", pct(claim, 50) + " ms p50, " + pct(claim, 99) + " ms p99 (" + claim.size()
                + " tasks with blockers)", "claimed_at − the last blocker's completed_at: includes waiting for a free teammate (5 tasks"
                + " per layer, 2 or 3 teammates per team)"));
        f.add(new Figure("agent steps", steps + " model requests (leads and teammates)", "the scripted model's request log"));
        f.add(new Figure("PostgreSQL transactions per agent step", String.format("%.1f (%d commits / %d model requests)",
                steps == 0 ? 0.0 : (double) xacts / steps, xacts, steps), "pg_stat_database.xact_commit of the cohort database,"
                + " every service and the suite's own polling included"));
        f.add(new Figure("CPU per agent step", String.format("%.1f ms (%.1f CPU s of every service JVM / %d steps)",
                steps == 0 ? 0.0 : cpuTicks * 10.0 / steps, cpuTicks / 100.0, steps), "utime + stime from /proc/<pid>/stat: moves far less with load than wall time"));
        StringBuilder heap = new StringBuilder();
        for (Service s : List.of(Service.LEAD, Service.TEAMMATE)) {
            for (int n : stack.liveReplicas(s)) {
                heap.append(heap.isEmpty() ? "" : ", ").append(RelStack.replicaName(s, n)).append(" ")
                        .append(heapMb(stack, s, n)).append(" MB heap / ").append(rssMb(stack.replica(s, n).pid())).append(" MB RSS");
            }
        }
        for (Service s : List.of(Service.TOOL_RUNNER, Service.SCHEDULER)) {
            heap.append(", ").append(s.module).append(" ").append(heapMb(stack, s, 1)).append(" MB heap / ")
                    .append(rssMb(stack.process(s).pid())).append(" MB RSS");
        }
        f.add(new Figure("heap per replica (at the end)", heap.toString(), "heap: the service's own /q/metrics (jvm_memory_used_bytes, area heap,"
                + " summed over pools; -Xmx256m); RSS: VmRSS from /proc"));
        return new Result(f, checks);
    }

    // ---- the scripted agents

    /** The lead: build the board layer by layer, spawn the teammates, message them on "ping", else a short answer. */
    static Reply lead(JsonNode body, Shape shape) {
        if (housekeeping(body)) {
            return null;
        }
        String agent = body.path("user").asText();
        String team = agent.substring(0, agent.indexOf('/'));
        int t = Integer.parseInt(team.substring(1));
        JsonNode msgs = body.path("messages");
        boolean build = false;
        int issuedCreates = 0;
        boolean spawned = false;
        Map<String, String> created = new HashMap<>(); // "L-k" → task id
        String lastRole = msgs.isEmpty() ? "" : msgs.get(msgs.size() - 1).path("role").asText();
        String lastUser = "";
        boolean pingedSinceLastUser = false;
        for (JsonNode m : msgs) {
            String role = m.path("role").asText();
            String content = m.path("content").isTextual() ? m.path("content").asText() : m.path("content").toString();
            if (role.equals("user")) {
                lastUser = content;
                pingedSinceLastUser = false;
                if (content.contains("build " + team)) {
                    build = true;
                }
            } else if (role.equals("assistant")) {
                for (JsonNode c : m.path("tool_calls")) {
                    String name = c.path("function").path("name").asText();
                    if (name.equals("create_task")) {
                        issuedCreates++;
                    } else if (name.equals("spawn_teammate")) {
                        spawned = true;
                    } else if (name.equals("send_message")) {
                        pingedSinceLastUser = true;
                    }
                }
            } else if (role.equals("tool")) {
                Matcher x = CREATED.matcher(content);
                if (x.find() && x.group(2).equals(team)) {
                    created.put(x.group(3) + "-" + x.group(4), x.group(1));
                }
            }
        }
        if (build && !spawned && (lastRole.equals("tool") || lastRole.equals("user"))) {
            if (issuedCreates < shape.tasksPerTeam()) {
                if (created.size() < issuedCreates) {
                    return null; // a result not seen yet (cannot happen: the engine sends every result first)
                }
                int layer = issuedCreates / WIDTH + 1;
                List<Reply.ToolCall> calls = new ArrayList<>();
                for (int k = 1; k <= WIDTH; k++) {
                    StringBuilder args = new StringBuilder("{\"subject\":\"" + team + " L" + layer + "-" + k + "\",\"description\":\"layer "
                            + layer + "\"");
                    if (layer > 1) {
                        args.append(",\"blockedBy\":[\"").append(created.get((layer - 1) + "-" + k)).append("\",\"")
                                .append(created.get((layer - 1) + "-" + (k % WIDTH + 1))).append("\"]");
                    }
                    calls.add(Reply.ToolCall.of("create_task", args.append('}').toString()));
                }
                return Reply.toolCalls(calls.toArray(Reply.ToolCall[]::new));
            }
            List<Reply.ToolCall> calls = new ArrayList<>();
            for (int k = 1; k <= shape.teammatesOf(t); k++) {
                calls.add(Reply.ToolCall.of("spawn_teammate", "{\"name\":\"w" + k + "\",\"role\":\"worker\",\"prompt\":\"stand by for tasks\"}"));
            }
            return Reply.toolCalls(calls.toArray(Reply.ToolCall[]::new));
        }
        if (lastRole.equals("user") && lastUser.contains("ping " + team) && !pingedSinceLastUser) {
            List<Reply.ToolCall> calls = new ArrayList<>();
            for (int k = 1; k <= shape.teammatesOf(t); k++) {
                calls.add(Reply.ToolCall.of("send_message", "{\"to\":\"w" + k + "\",\"content\":\"ping from lead " + team + "\"}"));
            }
            return Reply.toolCalls(calls.toArray(Reply.ToolCall[]::new));
        }
        return Reply.text(spawned ? "noted" : "building");
    }

    /** A teammate: complete the task it was given, answer a ping, else stand by. */
    static Reply teammate(JsonNode body) {
        if (housekeeping(body)) {
            return null;
        }
        JsonNode msgs = body.path("messages");
        JsonNode last = msgs.isEmpty() ? null : msgs.get(msgs.size() - 1);
        if (last == null || !last.path("role").asText().equals("user")) {
            return Reply.text("done");
        }
        String text = last.path("content").isTextual() ? last.path("content").asText() : last.path("content").toString();
        Matcher m = CLAIMED.matcher(text);
        if (m.find()) {
            return Reply.toolCalls(Reply.ToolCall.of("complete_task", "{\"task_id\":\"" + m.group(1) + "\",\"result\":\"done\"}"));
        }
        if (text.contains("ping from lead")) {
            return Reply.text("pong");
        }
        return Reply.text("standing by");
    }

    /** The engine's memory requests (answered by {@link RelStack#MEMORY_RULE}), not the agent's own steps. */
    private static boolean housekeeping(JsonNode body) {
        for (JsonNode m : body.path("messages")) {
            if (m.path("role").asText().equals("system") && m.path("content").asText().matches("(?s)^You (extract|select|consolidate) memor.*")) {
                return true;
            }
        }
        return false;
    }

    // ---- reading the stores

    private static String prompt(RelStack stack, String base, String team, String text) {
        var r = stack.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/teams/" + team + "/prompts")).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + RelStack.API_TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("text", text)))).build());
        if (r.statusCode() != 202) {
            throw new IllegalStateException("prompt to " + team + ": " + r.statusCode() + " " + r.body());
        }
        return RelStack.json(r.body()).path("id").asText();
    }

    private static List<String> liveUrls(RelStack stack, Service s) {
        return stack.liveReplicas(s).stream().map(n -> stack.replicaUrl(s, n)).toList();
    }

    private static int completedTasks(RelStack stack, List<String> ids) throws Exception {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM lead.tasks WHERE team = ANY (?) AND status = 'completed'")) {
            ps.setArray(1, c.createArrayOf("text", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** How many of {@code prompts} a lead's turn_completed lists. */
    private static long answered(RelStack stack, List<String> ids, Set<String> prompts) throws Exception {
        Set<String> done = new HashSet<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT data::text FROM lead.events WHERE team = ANY (?) AND type = 'turn_completed' AND agent = 'lead'")) {
            ps.setArray(1, c.createArrayOf("text", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    for (JsonNode id : RelStack.json(rs.getString(1)).path("promptIds")) {
                        done.add(id.asText());
                    }
                }
            }
        }
        return prompts.stream().filter(done::contains).count();
    }

    private static List<Long> firstEvents(RelStack stack, List<String> ids, Map<String, Instant> sentAt) throws Exception {
        Map<String, Instant> first = new HashMap<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT ts, prompt_id FROM lead.events WHERE team = ANY (?) AND type = 'turn_started'")) {
            ps.setArray(1, c.createArrayOf("text", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String pid = rs.getString(2);
                    Instant ts = rs.getTimestamp(1).toInstant();
                    first.merge(pid, ts, (a, b) -> a.isBefore(b) ? a : b);
                }
            }
        }
        List<Long> out = new ArrayList<>();
        sentAt.forEach((id, at) -> {
            Instant f = first.get(id);
            if (f != null) {
                out.add(Duration.between(at, f).toMillis());
            }
        });
        return out;
    }

    /** The teammates' requests carrying a ping, each against its lead's request answered with the send_message. */
    private static List<Long> messageLatency(List<RecordedRequest> reqs, Instant after) {
        Map<String, Instant> leadAsked = new HashMap<>();
        List<Long> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (RecordedRequest r : reqs) {
            if (r.time().isBefore(after) || r.agent() == null) {
                continue;
            }
            String team = r.agent().substring(0, r.agent().indexOf('/') < 0 ? 0 : r.agent().indexOf('/'));
            if (r.agent().endsWith("/lead") && "scale-lead".equals(r.rule()) && lastUser(r.body()).contains("ping " + team)
                    && lastRole(r.body()).equals("user")) {
                leadAsked.putIfAbsent(team, r.time());
            } else if (r.agent().matches("s\\d+/w\\d+") && lastRole(r.body()).equals("user") && lastUser(r.body()).contains("ping from lead")
                    && leadAsked.containsKey(team) && seen.add(r.agent())) {
                out.add(Duration.between(leadAsked.get(team), r.time()).toMillis());
            }
        }
        return out;
    }

    private static int pongs(RelStack stack, Instant after) {
        Set<String> agents = new HashSet<>();
        for (RecordedRequest r : stack.model.requests()) {
            if (!r.time().isBefore(after) && r.agent() != null && r.agent().matches("s\\d+/w\\d+") && lastUser(r.body()).contains("ping from lead")) {
                agents.add(r.agent());
            }
        }
        return agents.size();
    }

    private static String lastRole(JsonNode body) {
        JsonNode m = body.path("messages");
        return m.isEmpty() ? "" : m.get(m.size() - 1).path("role").asText();
    }

    private static String lastUser(JsonNode body) {
        String u = "";
        for (JsonNode m : body.path("messages")) {
            if (m.path("role").asText().equals("user")) {
                u = m.path("content").isTextual() ? m.path("content").asText() : m.path("content").toString();
            }
        }
        return u;
    }

    /** Per task: completed once, one owner, claimed after its blockers completed; claim latency of the blocked ones. */
    private static final class TaskFacts {
        int completed;
        int edges;
        final List<String> problems = new ArrayList<>();
        final List<Long> claimMs = new ArrayList<>();
        /** From the moment both the task (unblocked) and its claimer (its previous task completed) were free. */
        final List<Long> freeClaimMs = new ArrayList<>();
    }

    private static TaskFacts taskFacts(RelStack stack, List<String> ids) throws Exception {
        TaskFacts f = new TaskFacts();
        Map<Long, Timestamp[]> times = new HashMap<>(); // created, claimed, completed
        Map<Long, String> status = new HashMap<>();
        Map<Long, String> ownerOf = new HashMap<>();
        Map<Long, List<Long>> deps = new HashMap<>();
        try (Connection c = stack.db()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id, status, created_at, claimed_at, completed_at, team || '/' || owner FROM lead.tasks WHERE team = ANY (?)")) {
                ps.setArray(1, c.createArrayOf("text", ids.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        times.put(rs.getLong(1), new Timestamp[] {rs.getTimestamp(3), rs.getTimestamp(4), rs.getTimestamp(5)});
                        status.put(rs.getLong(1), rs.getString(2));
                        ownerOf.put(rs.getLong(1), rs.getString(6));
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT task_id, depends_on FROM lead.task_deps WHERE team = ANY (?)")) {
                ps.setArray(1, c.createArrayOf("text", ids.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        deps.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getLong(2));
                        f.edges++;
                    }
                }
            }
        }
        Map<String, Integer> completions = new HashMap<>();
        Map<String, Set<String>> owners = new HashMap<>();
        for (String team : ids) {
            for (Map<String, Object> e : Invariants.events(stack, team)) {
                String id = Invariants.data(e).path("id").asText();
                if ("task_completed".equals(e.get("type"))) {
                    completions.merge(id, 1, Integer::sum);
                } else if ("task_claimed".equals(e.get("type"))) {
                    owners.computeIfAbsent(id, k -> new HashSet<>()).add(Invariants.data(e).path("owner").asText());
                }
            }
        }
        for (var e : new TreeMap<>(status).entrySet()) {
            long id = e.getKey();
            String tid = "task_" + id;
            if ("completed".equals(e.getValue())) {
                f.completed++;
            } else {
                f.problems.add(tid + " is " + e.getValue());
            }
            if (completions.getOrDefault(tid, 0) != 1) {
                f.problems.add(tid + " completed " + completions.getOrDefault(tid, 0) + " times");
            }
            if (owners.getOrDefault(tid, Set.of()).size() > 1) {
                f.problems.add(tid + " claimed by " + owners.get(tid));
            }
            Timestamp claimed = times.get(id)[1];
            Timestamp unblocked = null;
            for (long d : deps.getOrDefault(id, List.of())) {
                Timestamp done = times.containsKey(d) ? times.get(d)[2] : null;
                if (done == null) {
                    f.problems.add(tid + "'s blocker task_" + d + " never completed");
                } else if (unblocked == null || done.after(unblocked)) {
                    unblocked = done;
                }
            }
            if (claimed != null && unblocked != null) {
                if (claimed.before(unblocked)) {
                    f.problems.add(tid + " claimed at " + claimed + " before its last blocker completed at " + unblocked);
                } else {
                    f.claimMs.add(Duration.between(unblocked.toInstant(), claimed.toInstant()).toMillis());
                }
            }
            // the claimer's previous task: the latest one it completed before this claim
            Timestamp prev = null;
            for (var o : times.entrySet()) {
                Timestamp done = o.getValue()[2];
                if (o.getKey() != id && Objects.equals(ownerOf.get(o.getKey()), ownerOf.get(id)) && done != null
                        && claimed != null && !done.after(claimed) && (prev == null || done.after(prev))) {
                    prev = done;
                }
            }
            if (claimed != null && prev != null) {
                Timestamp free = unblocked == null || prev.after(unblocked) ? prev : unblocked;
                f.freeClaimMs.add(Duration.between(free.toInstant(), claimed.toInstant()).toMillis());
            }
        }
        return f;
    }

    /** Owner → count; for the leads the pid is mapped to the replica's name. */
    private static Map<String, Integer> spread(RelStack stack, String sql, List<String> ids, boolean lead) throws Exception {
        Map<String, Integer> out = new TreeMap<>();
        Map<String, String> byPid = new HashMap<>();
        for (int n : stack.liveReplicas(Service.LEAD)) {
            byPid.put(Long.toString(stack.replica(Service.LEAD, n).pid()), RelStack.replicaName(Service.LEAD, n));
        }
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("text", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String o = String.valueOf(rs.getString(1));
                    if (lead) {
                        o = byPid.getOrDefault(o.contains("@") ? o.substring(0, o.indexOf('@')) : o, "gone:" + o);
                    }
                    out.merge(o, 1, Integer::sum);
                }
            }
        }
        return out;
    }

    private static long xacts(RelStack stack) throws Exception {
        try (Connection c = stack.db(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** utime + stime (clock ticks) of every service JVM, by pid. */
    private static Map<Integer, Long> cpu(RelStack stack) {
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (Service s : Service.values()) {
            for (int n : stack.liveReplicas(s)) {
                long pid = stack.replica(s, n).pid();
                try {
                    String st = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    out.put((int) pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (Exception e) {
                    // gone
                }
            }
        }
        return out;
    }

    /** Heap in use from the replica's own Prometheus metrics, MB; -1 if unreadable. */
    private static long heapMb(RelStack stack, Service s, int n) {
        try {
            var r = stack.send(HttpRequest.newBuilder(URI.create(stack.replicaManagementUrl(s, n) + "/q/metrics")).timeout(Duration.ofSeconds(10)).GET().build());
            double bytes = 0;
            boolean any = false;
            for (String line : r.body().split("\n")) {
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    bytes += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    any = true;
                }
            }
            return any ? Math.round(bytes / (1024 * 1024)) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    private static long rssMb(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("\\D", "")) / 1024;
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    static long pct(List<Long> v, int p) {
        if (v.isEmpty()) {
            return -1;
        }
        List<Long> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
    }
}

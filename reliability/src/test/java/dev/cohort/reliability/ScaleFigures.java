package dev.cohort.reliability;

import dev.cohort.reliability.RelStack.Service;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small version of issue 17 item 4, labelled as such in the report: {@code teams} teams on the one lead-service
 * replica of the suite's stack, {@code prompts} concurrent prompts each (one bash call and an answer per turn). It
 * measures prompt → first event of its turn (the HTTP 202 as the client saw it → the stored {@code turn_started}'s
 * {@code ts}), prompt → {@code turn_completed}, turns per second, the services' resident memory, and PostgreSQL
 * transactions per model request (an agent step). Nothing is asserted about speed.
 */
final class ScaleFigures {

    record Figure(String name, String value, String how) {
    }

    static List<Figure> run(RelStack stack, int teams, int prompts) throws Exception {
        List<String> ids = new ArrayList<>();
        StringBuilder rules = new StringBuilder();
        for (int t = 1; t <= teams; t++) {
            String team = String.format("s%02d", t);
            ids.add(team);
            rules.append(rules.isEmpty() ? "" : ",")
                    .append("{\"name\":\"").append(team).append("-done\",\"match\":{\"agent\":\"").append(team)
                    .append("/lead\",\"lastRole\":\"tool\"},\"reply\":{\"text\":\"done\"}},")
                    .append("{\"name\":\"").append(team).append("-work\",\"match\":{\"agent\":\"").append(team)
                    .append("/lead\"},\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"true\"}}]}}");
        }
        stack.appendRules(rules.toString());
        for (String team : ids) {
            int code = stack.post(Service.LEAD, "/api/v1/teams", Map.of("id", team)).statusCode();
            if (code != 201) {
                throw new IllegalStateException("team " + team + ": HTTP " + code);
            }
        }
        long xactBefore = xacts(stack);
        long requestsBefore = stack.model.requests().size();
        Map<String, Instant> sentAt = new ConcurrentHashMap<>();
        Map<String, String> teamOf = new ConcurrentHashMap<>();
        Instant t0 = Instant.now();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (String team : ids) {
            for (int p = 1; p <= prompts; p++) {
                int n = p;
                all.add(CompletableFuture.runAsync(() -> {
                    Instant before = Instant.now();
                    String id = new Workload(team).prompt(stack, "scale prompt " + n);
                    sentAt.put(id, before);
                    teamOf.put(id, team);
                }));
            }
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        Map<String, Instant> firstEvent = new HashMap<>();
        Map<String, Instant> completedAt = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (completedAt.size() < sentAt.size() && System.nanoTime() < deadline) {
            firstEvent.clear();
            completedAt.clear();
            try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                    "SELECT type, ts, data::text FROM lead.events WHERE team = ANY (?) AND type IN ('turn_started', 'turn_completed')")) {
                ps.setArray(1, c.createArrayOf("text", ids.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        var data = RelStack.json(rs.getString(3));
                        Instant ts = rs.getTimestamp(2).toInstant();
                        if ("turn_started".equals(rs.getString(1))) {
                            String pid = data.path("promptId").asText();
                            firstEvent.merge(pid, ts, (a, b) -> a.isBefore(b) ? a : b);
                        } else {
                            for (var pid : data.path("promptIds")) {
                                completedAt.merge(pid.asText(), ts, (a, b) -> a.isBefore(b) ? a : b);
                            }
                        }
                    }
                }
            }
            if (completedAt.size() < sentAt.size()) {
                Thread.sleep(500);
            }
        }
        Instant end = completedAt.values().stream().max(Instant::compareTo).orElse(Instant.now());
        List<Long> toFirst = new ArrayList<>();
        List<Long> toDone = new ArrayList<>();
        for (var e : sentAt.entrySet()) {
            // a prompt injected into a running turn has no turn_started of its own: its first event is that turn's next one
            Instant first = firstEvent.get(e.getKey());
            if (first != null) {
                toFirst.add(Duration.between(e.getValue(), first).toMillis());
            }
            Instant done = completedAt.get(e.getKey());
            if (done != null) {
                toDone.add(Duration.between(e.getValue(), done).toMillis());
            }
        }
        long steps = stack.model.requests().size() - requestsBefore;
        long xacts = xacts(stack) - xactBefore;
        double secs = Duration.between(t0, end).toMillis() / 1000.0;
        List<Figure> f = new ArrayList<>();
        String shape = teams + " teams × " + prompts + " concurrent prompts on 1 lead-service replica (each turn: one bash `true`, then an answer)";
        f.add(new Figure("prompts answered", completedAt.size() + " of " + sentAt.size(), shape));
        f.add(new Figure("throughput", String.format("%.1f prompts/s (%.1f s for all)", completedAt.size() / Math.max(secs, 0.001), secs),
                "first POST → last turn_completed"));
        f.add(new Figure("prompt → first event (turn_started)", pct(toFirst, 50) + " ms p50, " + pct(toFirst, 99) + " ms p99 ("
                + toFirst.size() + " prompts that started a turn)", "client time before the POST → the stored event's ts"));
        f.add(new Figure("prompt → turn_completed", pct(toDone, 50) + " ms p50, " + pct(toDone, 99) + " ms p99", "the same clocks"));
        f.add(new Figure("PostgreSQL transactions per agent step", String.format("%.1f (%d commits / %d model requests)",
                steps == 0 ? 0.0 : (double) xacts / steps, xacts, steps), "pg_stat_database.xact_commit of the cohort database,"
                + " every service and the suite's own reads included"));
        StringBuilder rss = new StringBuilder();
        for (Service s : Service.values()) {
            rss.append(rss.isEmpty() ? "" : ", ").append(s.module).append(" ").append(rssMb(stack.process(s).pid())).append(" MB");
        }
        f.add(new Figure("resident memory per service JVM", rss.toString(), "VmRSS from /proc (heap capped at 256 MB)"));
        return f;
    }

    private static long xacts(RelStack stack) throws Exception {
        try (Connection c = stack.db(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
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

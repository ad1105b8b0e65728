package dev.cohort.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The reliability invariants, read from the stores (the lead's, the teammates', the tool runner's and the
 * scheduler's schemas in PostgreSQL), the stored event log ({@code lead.events}) and the workspace files the calls
 * wrote; never from logs. Each check returns whether it held and the facts behind the answer.
 */
final class Invariants {

    /** One invariant's outcome. */
    record Check(String name, boolean held, String detail) {
    }

    private Invariants() {
    }

    /** The team's stored events ({@code seq}, {@code type}, {@code agent}, {@code data}), in seq order. */
    static List<Map<String, Object>> events(RelStack stack, String team) throws SQLException {
        List<Map<String, Object>> out = new ArrayList<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT seq, type, agent, data::text FROM lead.events WHERE team = ? ORDER BY seq")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> e = new HashMap<>();
                    e.put("seq", rs.getLong(1));
                    e.put("type", rs.getString(2));
                    e.put("agent", rs.getString(3));
                    e.put("data", RelStack.json(rs.getString(4)));
                    out.add(e);
                }
            }
        }
        return out;
    }

    static JsonNode data(Map<String, Object> e) {
        return (JsonNode) e.get("data");
    }

    /**
     * No prompt lost: every prompt the lead stored for the team ({@code lead.prompts}) and every id the API accepted
     * is answered by a {@code turn_completed} (completed or failed) that lists it in {@code promptIds}.
     */
    static Check noPromptLost(RelStack stack, String team, List<String> accepted) throws SQLException {
        Set<String> stored = new TreeSet<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement("SELECT id FROM lead.prompts WHERE team = ?")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.add(rs.getString(1));
                }
            }
        }
        Map<String, String> answered = new HashMap<>();
        for (Map<String, Object> e : events(stack, team)) {
            if ("turn_completed".equals(e.get("type")) && "lead".equals(e.get("agent"))) {
                for (JsonNode id : data(e).path("promptIds")) {
                    answered.put(id.asText(), data(e).path("status").asText());
                }
            }
        }
        Set<String> missingStore = new TreeSet<>(accepted);
        missingStore.removeAll(stored);
        Set<String> unanswered = new TreeSet<>(stored);
        unanswered.removeAll(answered.keySet());
        long failed = answered.values().stream().filter("failed"::equals).count();
        boolean held = missingStore.isEmpty() && unanswered.isEmpty();
        return new Check("no prompt lost", held, stored.size() + " prompts stored, " + (stored.size() - unanswered.size())
                + " answered (" + failed + " by a failed turn)" + (missingStore.isEmpty() ? "" : "; accepted but not stored: " + missingStore)
                + (unanswered.isEmpty() ? "" : "; no finished turn: " + unanswered));
    }

    /**
     * No tool call run twice: each call id of the workload appears at most once in the workspace's {@code ran.log}
     * files and exactly once when its {@code tool_call_finished} said it succeeded; the tool runner's journal
     * ({@code toolrunner.tool_calls}) has the call, and a call the journal marks interrupted (the runner died under
     * it) was reported to the model as failed.
     */
    static Check noToolCallTwice(RelStack stack, Workload w) throws SQLException {
        Map<String, Boolean> finishedError = new HashMap<>();
        for (Map<String, Object> e : events(stack, w.team)) {
            if ("tool_call_finished".equals(e.get("type"))) {
                String id = data(e).path("callId").asText();
                // a resumed call may finish once more with the recorded answer; an error in any of them was seen
                finishedError.merge(id, data(e).path("error").asBoolean(false), Boolean::logicalOr);
            }
        }
        Map<String, String> journal = new HashMap<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT call_id, status FROM toolrunner.tool_calls WHERE team = ?")) {
            ps.setString(1, w.team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    journal.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        List<String> facts = new ArrayList<>();
        for (String id : w.calls()) {
            long runs = w.runs(stack, id);
            Boolean error = finishedError.get(id);
            String status = journal.get(id);
            facts.add(id + ": ran " + runs + "x, journal " + status + (error == null ? ", not finished" : error ? ", model told it failed" : ", ok"));
            if (runs > 1) {
                problems.add(id + " ran " + runs + " times");
            }
            if (Boolean.FALSE.equals(error) && runs != 1) {
                problems.add(id + " reported ok but ran " + runs + " times");
            }
            if ("interrupted".equals(status) && !Boolean.TRUE.equals(error)) {
                problems.add(id + " interrupted in the runner but not reported as failed");
            }
            if (runs > 0 && status == null) {
                problems.add(id + " ran but is not in the runner's journal");
            }
        }
        return new Check("no tool call run twice", problems.isEmpty(), String.join("; ", problems.isEmpty() ? facts : problems));
    }

    /**
     * The event log is complete: every model tool call of the workload in the tool runner's journal (the host's own
     * calls, hook settings and skill globs, are not model calls and have no events) has its
     * {@code tool_call_started} and {@code tool_call_finished} in {@code lead.events} (the teammates' events reach it
     * over {@code cohort.events}), and the team's seqs have no gap.
     */
    static Check eventLog(RelStack stack, Workload w) throws SQLException {
        String team = w.team;
        Set<String> started = new HashSet<>();
        Set<String> finished = new HashSet<>();
        List<Long> seqs = new ArrayList<>();
        for (Map<String, Object> e : events(stack, team)) {
            seqs.add((Long) e.get("seq"));
            if ("tool_call_started".equals(e.get("type"))) {
                started.add(e.get("agent") + ":" + data(e).path("callId").asText());
            } else if ("tool_call_finished".equals(e.get("type"))) {
                finished.add(e.get("agent") + ":" + data(e).path("callId").asText());
            }
        }
        List<String> journal = new ArrayList<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT agent, call_id FROM toolrunner.tool_calls WHERE team = ? ORDER BY started_at")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String agent = rs.getString(1);
                    if (!w.calls().contains(rs.getString(2))) {
                        continue;
                    }
                    journal.add((agent.contains("/") ? agent.substring(agent.indexOf('/') + 1) : agent) + ":" + rs.getString(2));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (String call : journal) {
            if (!started.contains(call)) {
                problems.add(call + " has no tool_call_started");
            }
            if (!finished.contains(call)) {
                problems.add(call + " has no tool_call_finished");
            }
        }
        for (int i = 1; i < seqs.size(); i++) {
            if (seqs.get(i) != seqs.get(i - 1) + 1) {
                problems.add("seq gap " + seqs.get(i - 1) + " → " + seqs.get(i));
            }
        }
        return new Check("event log complete", problems.isEmpty(), problems.isEmpty()
                ? journal.size() + " journaled calls, each with its started and finished events; " + seqs.size() + " events, seqs without gaps"
                : String.join("; ", problems));
    }

    /**
     * Tasks: every task of the team completed (none lost), each completed once, and never claimed by two owners (the
     * owners named by its {@code task_claimed} events; a second owner is allowed only after the first one's lease was
     * given up, which this single-teammate workload never needs).
     */
    static Check tasks(RelStack stack, String team, int expected) throws SQLException {
        Map<String, String> status = new TreeMap<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, status, owner, claims FROM lead.tasks WHERE team = ? ORDER BY id")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    status.put("task_" + rs.getLong(1), rs.getString(2) + " by " + rs.getString(3) + " (claims " + rs.getInt(4) + ")");
                }
            }
        }
        Map<String, Set<String>> owners = new HashMap<>();
        Map<String, Integer> completions = new HashMap<>();
        for (Map<String, Object> e : events(stack, team)) {
            String id = data(e).path("id").asText();
            if ("task_claimed".equals(e.get("type"))) {
                owners.computeIfAbsent(id, k -> new HashSet<>()).add(data(e).path("owner").asText());
            } else if ("task_completed".equals(e.get("type"))) {
                completions.merge(id, 1, Integer::sum);
            }
        }
        List<String> problems = new ArrayList<>();
        if (status.size() != expected) {
            problems.add(status.size() + " tasks, expected " + expected);
        }
        status.forEach((id, s) -> {
            if (!s.startsWith("completed")) {
                problems.add(id + " is " + s);
            }
            if (completions.getOrDefault(id, 0) != 1) {
                problems.add(id + " completed " + completions.getOrDefault(id, 0) + " times");
            }
            if (owners.getOrDefault(id, Set.of()).size() > 1) {
                problems.add(id + " claimed by " + owners.get(id));
            }
        });
        return new Check("tasks: one owner each, none lost", problems.isEmpty(),
                problems.isEmpty() ? String.join(", ", status.values()) : String.join("; ", problems));
    }

    /**
     * Cron: for each job of {@code team}, no occurrence fired twice (two {@code cron_fired} events for one
     * {@code dueAt}) and none silently skipped: every minute from the job's first occurrence up to {@code until} was
     * fired, or stood in for by a later firing ({@code missedSince} ≤ it, the missed-fire policy).
     */
    static Check cron(RelStack stack, String team, Instant from, Instant until) throws SQLException {
        Map<String, Map<Instant, Integer>> fired = new TreeMap<>();
        Map<String, List<Instant[]>> covered = new HashMap<>();
        for (Map<String, Object> e : events(stack, team)) {
            if (!"cron_fired".equals(e.get("type"))) {
                continue;
            }
            JsonNode d = data(e);
            Instant due = Instant.parse(d.path("dueAt").asText());
            String job = d.path("jobId").asText();
            fired.computeIfAbsent(job, k -> new TreeMap<>()).merge(due, 1, Integer::sum);
            if (d.hasNonNull("missedSince")) {
                covered.computeIfAbsent(job, k -> new ArrayList<>()).add(new Instant[] {Instant.parse(d.path("missedSince").asText()), due});
            }
        }
        List<String> problems = new ArrayList<>();
        int inWindow = 0;
        int catchUps = 0;
        for (var job : fired.entrySet()) {
            Map<Instant, Integer> dues = job.getValue();
            for (var d : dues.entrySet()) {
                if (d.getValue() > 1) {
                    problems.add("job " + job.getKey() + " fired " + d.getValue() + "x for " + d.getKey());
                }
            }
            // the first occurrence at or after `from` (the job existed before it)
            Instant start = from.truncatedTo(ChronoUnit.MINUTES).equals(from) ? from
                    : from.truncatedTo(ChronoUnit.MINUTES).plus(1, ChronoUnit.MINUTES);
            for (Instant m = start; !m.isAfter(until); m = m.plus(1, ChronoUnit.MINUTES)) {
                Instant minute = m;
                if (dues.containsKey(minute)) {
                    inWindow++;
                    continue;
                }
                boolean stoodIn = covered.getOrDefault(job.getKey(), List.of()).stream()
                        .anyMatch(r -> !r[0].isAfter(minute) && !r[1].isBefore(minute));
                if (stoodIn) {
                    catchUps++;
                } else {
                    problems.add("job " + job.getKey() + ": " + minute + " neither fired nor caught up");
                }
            }
        }
        if (fired.isEmpty()) {
            problems.add("no cron_fired event at all");
        }
        return new Check("cron: each occurrence once, none skipped", problems.isEmpty(), problems.isEmpty()
                ? inWindow + " minutes fired on time in the window" + (catchUps == 0 ? "" : ", " + catchUps + " stood in for by a catch-up")
                : String.join("; ", problems));
    }

    static Map<String, Object> row(String name, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(name, value);
        return m;
    }
}

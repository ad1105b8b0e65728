package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code cohort chat}'s plan approvals: {@code /plans} lists the team's pending plan approvals,
 * {@code /approve-plan <id> [feedback]} and {@code /reject-plan <id> [feedback]} decide one over
 * {@code POST /api/v1/teams/{team}/protocols/{id}} (the same conditional transition as the lead's {@code review_plan}).
 * The id may be a unique prefix of the request id (the chat shows the first 8 characters).
 */
final class PlanDecisions {

    private final ApiClient api;
    private final String team;

    PlanDecisions(ApiClient api, String team) {
        this.api = api;
        this.team = team;
    }

    /** A parsed {@code /approve-plan} or {@code /reject-plan} line. */
    record Decision(String id, boolean approve, String feedback) {
    }

    /**
     * Parses {@code /approve-plan <id> [feedback]} / {@code /reject-plan <id> [feedback]}; throws
     * {@link IllegalArgumentException} with the usage when the id is missing.
     */
    static Decision parse(String line) {
        String[] parts = line.strip().split("\\s+", 3);
        boolean approve = parts[0].equals("/approve-plan");
        if (parts.length < 2 || parts[1].isBlank()) {
            throw new IllegalArgumentException("usage: " + parts[0] + " <request id> [feedback]  (/plans lists them)");
        }
        return new Decision(parts[1], approve, parts.length > 2 ? parts[2].strip() : null);
    }

    /** The one pending request whose id starts with {@code prefix}; a clear error for none or several. */
    static String resolve(List<JsonNode> pending, String prefix) {
        List<String> ids = new ArrayList<>();
        for (JsonNode p : pending) {
            String id = p.path("id").asText();
            if (id.equals(prefix)) {
                return id;
            }
            if (id.startsWith(prefix)) {
                ids.add(id);
            }
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("no pending plan approval with id " + prefix + " (/plans lists them)");
        }
        if (ids.size() > 1) {
            throw new IllegalArgumentException("id " + prefix + " matches " + ids.size() + " pending plans: "
                    + String.join(", ", ids));
        }
        return ids.getFirst();
    }

    /** One line per pending plan approval: short id, sender, the plan's first line. */
    static List<String> lines(Style s, List<JsonNode> pending) {
        if (pending.isEmpty()) {
            return List.of(s.dim("no plan is waiting for approval"));
        }
        List<String> out = new ArrayList<>();
        for (JsonNode p : pending) {
            out.add(EventFormatter.prefix(s, p.path("sender").asText(), false) + s.yellow("plan "
                    + EventFormatter.shortId(p.path("id").asText())) + " " + EventFormatter.oneLine(
                    p.path("payload").path("plan").asText(""), EventFormatter.LINE_MAX));
        }
        out.add(s.dim("decide with /approve-plan <id> [feedback] or /reject-plan <id> [feedback]"));
        return out;
    }

    List<JsonNode> pending() throws IOException, InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        api.get("/api/v1/teams/" + ApiClient.seg(team) + "/protocols?type=plan_approval&status=pending").forEach(out::add);
        return out;
    }

    /** Decides the plan of {@code line}; returns what to print. */
    String decide(String line) throws IOException, InterruptedException {
        Decision d = parse(line);
        String id = resolve(pending(), d.id());
        Map<String, Object> body = d.feedback() == null ? Map.of("approve", d.approve())
                : Map.of("approve", d.approve(), "feedback", d.feedback());
        JsonNode r = api.post("/api/v1/teams/" + ApiClient.seg(team) + "/protocols/" + ApiClient.seg(id), body);
        return TerminalText.line("plan " + EventFormatter.shortId(id) + " of " + r.path("sender").asText() + " "
                + r.path("status").asText());
    }
}

package dev.cohort.reliability;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.Reply;
import dev.cohort.devstack.model.Rule;
import dev.cohort.devstack.model.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Malformed model output, answered by the scripted model over real HTTP to the packaged
 * lead-service. Each case is its own team; the lead's first model call gets the malformed answer, every later call the
 * text {@code recovered}. A case holds when the turn either continues to a completed answer with the error shown to
 * the model (a failed {@code tool_call_finished} and a tool message in the next request) or, where nothing can be
 * shown to the model, ends clearly (a {@code turn_completed} with reason {@code error} and a message) — never a turn
 * left hanging — and a second prompt to the same team is then answered.
 */
final class ModelOutputSweep {

    /** How the lead must react to one malformed answer. */
    enum Expect {
        /** A tool call the engine refuses: a failed result the model sees, then the turn goes on. */
        MODEL_SEES_ERROR,
        /** A reply that cannot be used at all: retried and the turn goes on, or the turn ends with a clear error. */
        CONTINUES_OR_FAILS_CLEARLY
    }

    record Case(String id, String input, Reply reply, Expect expect) {
    }

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private final RelStack stack;
    final List<Report.InputRow> rows = new ArrayList<>();

    ModelOutputSweep(RelStack stack) {
        this.stack = stack;
    }

    static List<Case> cases() {
        String completion = "{\"id\":\"chatcmpl-x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"scripted\",";
        return List.of(
                new Case("badargs", "a bash call whose arguments are not JSON ({\"command\": \"echo hi)",
                        Reply.toolCalls(Reply.ToolCall.of("bash", "{}")).withRawArguments("{\"command\": \"echo hi"),
                        Expect.MODEL_SEES_ERROR),
                new Case("unknowntool", "a call of a tool that does not exist (no_such_tool)",
                        Reply.toolCalls(Reply.ToolCall.of("no_such_tool", "{\"x\":1}")), Expect.MODEL_SEES_ERROR),
                new Case("wrongargs", "a read_file call with a wrong argument type ({\"path\": 42})",
                        Reply.toolCalls(Reply.ToolCall.of("read_file", "{\"path\": 42}")), Expect.MODEL_SEES_ERROR),
                new Case("emptychoices", "a 200 answer with an empty choices array",
                        Reply.rawBody(completion + "\"choices\":[]}"), Expect.CONTINUES_OR_FAILS_CLEARLY),
                new Case("nomessage", "a 200 answer whose choice has no message",
                        Reply.rawBody(completion + "\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"}]}"),
                        Expect.CONTINUES_OR_FAILS_CLEARLY),
                new Case("notjson", "a 200 answer that is not JSON (an HTML error page)",
                        Reply.rawBody("<html><body>502 Bad Gateway</body></html>"), Expect.CONTINUES_OR_FAILS_CLEARLY),
                new Case("cutbody", "an answer cut after 40 bytes of its body (connection closed mid-response)",
                        Reply.text("this answer never arrives whole").truncatedAt(40), Expect.CONTINUES_OR_FAILS_CLEARLY),
                new Case("cuttoolcall", "a tool call cut by the output limit (finish_reason length, arguments half sent)",
                        Reply.toolCalls(Reply.ToolCall.of("bash", "{}")).withRawArguments("{\"command\": \"ech")
                                .withFinishReason("length"), Expect.CONTINUES_OR_FAILS_CLEARLY));
    }

    void run() throws Exception {
        for (Case c : cases()) {
            String team = "msweep-" + c.id();
            String agent = team + "/lead";
            stack.model.append(Scenario.builder()
                    .rule(Rule.when().name(team + "-bad").agent(agent).times(1).then(c.reply()))
                    .rule(Rule.when().name(team + "-ok").agent(agent).thenText("recovered"))
                    .build());
            var created = stack.post(RelStack.Service.LEAD, "/api/v1/teams", Map.of("id", team));
            if (created.statusCode() != 201) {
                throw new IllegalStateException("creating team " + team + ": " + created.statusCode() + " " + created.body());
            }
            Workload w = new Workload(team);
            w.prompt(stack, "sweep " + c.id());
            Optional<JsonNode> first = awaitTurn(team, 1);
            w.prompt(stack, "after " + c.id());
            Optional<JsonNode> second = awaitTurn(team, 2);
            rows.add(judge(c, team, agent, first, second));
        }
    }

    private Report.InputRow judge(Case c, String team, String agent, Optional<JsonNode> first, Optional<JsonNode> second)
            throws Exception {
        String expected = c.expect() == Expect.MODEL_SEES_ERROR
                ? "a failed tool result the model sees in its next request; the turn goes on to its answer"
                : "the turn goes on (retried) or ends with reason error and a plain message (no exception class); never hangs";
        StringBuilder got = new StringBuilder();
        boolean held;
        if (first.isEmpty()) {
            got.append("no turn_completed within ").append(PATIENCE.toMinutes()).append(" min");
            held = false;
        } else {
            JsonNode t = first.get();
            String reason = t.path("reason").asText();
            got.append("turn ").append(reason);
            String said = said(t);
            if (!said.isBlank()) {
                got.append(": \"").append(clip(said, 160)).append('"');
            }
            if (c.expect() == Expect.MODEL_SEES_ERROR) {
                Optional<String> failed = failedToolResult(team);
                Optional<String> seen = toolMessageSeenByModel(agent);
                got.append("; failed tool result: ").append(failed.map(s -> "\"" + clip(s, 100) + "\"").orElse("none"));
                got.append("; next request has it: ").append(seen.isPresent() ? "yes" : "no");
                held = reason.equals("completed") && "recovered".equals(t.path("text").asText()) && failed.isPresent()
                        && seen.isPresent();
            } else {
                held = (reason.equals("completed") && "recovered".equals(t.path("text").asText()))
                        || (reason.equals("error") && !said.isBlank() && !said.contains("Exception")
                                && !said.contains("langchain4j"));
            }
        }
        boolean after = second.isPresent() && second.get().path("reason").asText().equals("completed");
        got.append("; next prompt ").append(after ? "answered" : "NOT answered");
        return new Report.InputRow("malformed model output", "lead-service ← model", c.input(), expected, got.toString(),
                held && after);
    }

    /** What the turn told the user: its message, or for a failed turn its text (the error's sentence). */
    private static String said(JsonNode turnCompleted) {
        String m = turnCompleted.path("message").asText();
        return m.isBlank() ? turnCompleted.path("text").asText() : m;
    }

    /** The first stored {@code tool_call_finished} of the team with {@code error: true}, by its result preview. */
    private Optional<String> failedToolResult(String team) throws Exception {
        return Invariants.events(stack, team).stream()
                .filter(e -> "tool_call_finished".equals(e.get("type")))
                .map(Invariants::data)
                .filter(d -> d.path("error").asBoolean(false))
                .map(d -> d.path("preview").asText())
                .findFirst();
    }

    /** A tool-role message in a later request of the agent: the model was told what went wrong. */
    private Optional<String> toolMessageSeenByModel(String agent) {
        for (RecordedRequest r : stack.model.requests()) {
            if (!agent.equals(r.agent()) || r.call() < 2) {
                continue;
            }
            for (JsonNode m : r.body().path("messages")) {
                if ("tool".equals(m.path("role").asText()) && !m.path("content").asText().isBlank()) {
                    return Optional.of(m.path("content").asText());
                }
            }
        }
        return Optional.empty();
    }

    /** The team's n-th {@code turn_completed} event's data, waiting for it. */
    private Optional<JsonNode> awaitTurn(String team, int n) {
        try {
            return Optional.of(await().atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).ignoreExceptions()
                    .until(() -> Invariants.events(stack, team).stream()
                            .filter(e -> "turn_completed".equals(e.get("type"))).skip(n - 1).findFirst()
                            .map(Invariants::data).orElse(null), Objects::nonNull));
        } catch (ConditionTimeoutException e) {
            return Optional.empty();
        }
    }

    private static String clip(String s, int max) {
        String one = s.replace('\n', ' ').replace("|", "\\|");
        return one.length() <= max ? one : one.substring(0, max) + "…";
    }
}

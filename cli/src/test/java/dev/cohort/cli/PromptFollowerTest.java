package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What {@code cohort send} makes of a stream of events, with payloads as the engine and lead-service emit them. */
class PromptFollowerTest {

    private long seq;

    /** An event as the lead stores it: a {@code promptId} written in {@code data} goes to the envelope. */
    private JsonNode event(String type, String data) {
        try {
            return event(type, (ObjectNode) Json.MAPPER.readTree(data));
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** A whole turn of {@code prompt}: started, an intermediate text with a tool call, the tool, the final text. */
    private List<JsonNode> turn(String prompt, String turnId, String finalText) {
        String p = "\"promptId\":\"" + prompt + "\",\"turnId\":\"" + turnId + "\"";
        return List.of(
                event("turn_started", "{" + p + ",\"source\":\"cli\"}"),
                event("assistant_message", "{" + p + ",\"text\":\"let me look\",\"toolCalls\":[\"bash\"]}"),
                event("tool_call_started", "{" + p + ",\"callId\":\"c1\",\"tool\":\"bash\",\"args\":\"{}\"}"),
                event("tool_call_finished", "{" + p + ",\"callId\":\"c1\",\"tool\":\"bash\",\"preview\":\"ok\"}"),
                event("assistant_message", "{" + p + ",\"text\":\"" + finalText + "\",\"toolCalls\":[]}"),
                event("turn_completed", "{" + p + ",\"reason\":\"completed\",\"status\":\"completed\",\"text\":\"" + finalText
                        + "\",\"promptIds\":[\"" + prompt + "\"]}"));
    }

    /** Feeds events until the follower says the turn ended; returns how many it read. */
    private static int feed(PromptFollower f, List<JsonNode> events) {
        int read = 0;
        for (JsonNode e : events) {
            read++;
            if (f.accept(e)) {
                break;
            }
        }
        return read;
    }

    @Test
    void theSecondOfTwoPromptsInARowGetsOnlyItsOwnFinalAnswer() {
        List<JsonNode> stream = new ArrayList<>(turn("p1", "t1", "first answer"));
        stream.addAll(turn("p2", "t2", "second answer"));
        stream.add(event("turn_started", "{\"promptId\":\"p3\",\"turnId\":\"t3\",\"source\":\"cli\"}"));

        PromptFollower second = new PromptFollower("p2");
        assertThat(feed(second, stream)).isEqualTo(12);
        assertThat(second.ended()).isTrue();
        assertThat(second.completed()).isTrue();
        assertThat(second.answer()).contains("second answer");
        assertThat(second.errors()).isEmpty();

        PromptFollower first = new PromptFollower("p1");
        assertThat(feed(first, stream)).isEqualTo(6);
        assertThat(first.answer()).contains("first answer");
    }

    @Test
    void intermediateTextsAndSubagentMessagesAreNotTheAnswer() {
        PromptFollower f = new PromptFollower("p1");
        String p = "\"promptId\":\"p1\",\"turnId\":\"t1\"";
        feed(f, List.of(
                event("turn_started", "{" + p + "}"),
                event("assistant_message", "{" + p + ",\"text\":\"spawning a helper\",\"toolCalls\":[\"spawn_subagent\"]}"),
                event("assistant_message", "{" + p + ",\"text\":\"the helper's findings\",\"toolCalls\":[],\"subagent\":true}"),
                event("assistant_message", "{" + p + ",\"text\":\"the summary\",\"toolCalls\":[]}"),
                // an engine that sends no text with the completion: the lead's last text of the turn
                event("turn_completed", "{" + p + ",\"reason\":\"completed\",\"status\":\"completed\"}")));
        assertThat(f.answer()).contains("the summary");
    }

    @Test
    void aPromptInjectedIntoARunningTurnEndsWithThatTurn() {
        PromptFollower f = new PromptFollower("p2");
        List<JsonNode> running = new ArrayList<>(turn("p1", "t1", "both done").subList(0, 5));
        running.add(event("turn_completed", "{\"promptId\":\"p1\",\"turnId\":\"t1\",\"reason\":\"completed\",\"status\":\"completed\","
                + "\"text\":\"both done\",\"promptIds\":[\"p1\",\"p2\"]}"));
        running.addAll(turn("p3", "t3", "not this one"));

        assertThat(feed(f, running)).isEqualTo(6);
        assertThat(f.completed()).isTrue();
        assertThat(f.answer()).contains("both done");
    }

    @Test
    void aFailedTurnIsNotCompletedAndReportsItsErrorOnce() {
        PromptFollower f = new PromptFollower("p1");
        String p = "\"promptId\":\"p1\",\"turnId\":\"t1\"";
        feed(f, List.of(
                event("turn_started", "{" + p + "}"),
                event("error", "{\"turnId\":\"t1\",\"message\":\"the model refused the request: 401 invalid_api_key\"}"),
                event("turn_completed", "{" + p + ",\"reason\":\"error\",\"status\":\"failed\","
                        + "\"text\":\"the model refused the request: 401 invalid_api_key\"}")));
        assertThat(f.ended()).isTrue();
        assertThat(f.completed()).isFalse();
        assertThat(f.answer()).isEmpty();
        assertThat(f.errors()).containsExactly("the model refused the request: 401 invalid_api_key");
        assertThat(f.failure()).contains("the turn ended: error");
    }

    @Test
    void aCancelledTurnSaysHowItEnded() {
        PromptFollower f = new PromptFollower("p1");
        feed(f, List.of(event("turn_completed", "{\"promptId\":\"p1\",\"turnId\":\"t1\",\"reason\":\"cancelled\",\"status\":\"failed\","
                + "\"text\":\"The turn was cancelled.\"}")));
        assertThat(f.completed()).isFalse();
        assertThat(f.errors()).isEmpty();
        assertThat(f.failure()).contains("the turn ended: cancelled - The turn was cancelled.");
    }

    @Test
    void anotherPromptsFailureDoesNotEndThisOne() {
        PromptFollower f = new PromptFollower("p2");
        feed(f, List.of(
                event("error", "{\"promptId\":\"p1\",\"message\":\"no model configured\"}"),
                event("turn_completed", "{\"promptId\":\"p1\",\"reason\":\"error\",\"status\":\"failed\",\"message\":\"no model configured\"}")));
        assertThat(f.ended()).isFalse();
        assertThat(f.errors()).isEmpty();
        assertThat(f.answer()).isEqualTo(Optional.empty());
    }

    /** An event built as a tree, so hostile strings need no JSON escaping; its {@code promptId} in the envelope. */
    private JsonNode event(String type, ObjectNode data) {
        ObjectNode e = Json.MAPPER.createObjectNode().put("id", "e" + (++seq)).put("team", "default").put("agent", "lead")
                .put("ts", "2025-01-01T00:00:00Z").put("type", type).put("seq", seq);
        if (data.has("promptId")) {
            e.set("promptId", data.remove("promptId"));
        }
        e.set("data", data);
        return e;
    }

    @Test
    void anEventStoredBeforeTheEnvelopeCarriedThePromptStillCounts() throws Exception {
        PromptFollower f = new PromptFollower("p1");
        JsonNode old = Json.MAPPER.readTree("{\"id\":\"e1\",\"team\":\"default\",\"agent\":\"lead\",\"seq\":1,"
                + "\"type\":\"turn_completed\",\"data\":{\"promptId\":\"p1\",\"turnId\":\"t1\",\"reason\":\"completed\","
                + "\"status\":\"completed\",\"text\":\"done before\"}}");
        assertThat(f.accept(old)).isTrue();
        assertThat(f.completed()).isTrue();
        assertThat(f.answer()).contains("done before");
    }

    private static ObjectNode data(String prompt) {
        return Json.MAPPER.createObjectNode().put("promptId", prompt).put("turnId", "t1");
    }

    @Test
    void theAnswerKeepsItsLinesButShowsEveryControlSequence() {
        PromptFollower f = new PromptFollower("p1");
        feed(f, List.of(event("turn_started", data("p1")),
                event("turn_completed", data("p1").put("reason", "completed").put("status", "completed")
                        .put("text", "Done:\n- tests pass\trm -rf ~\r\u001b[2KApprove bash: ls? [y/N]\u001b]0;title\u0007 \u009b2J \u202e🎉"))));
        assertThat(f.answer()).contains("Done:\n- tests pass\trm -rf ~^M^[[2KApprove bash: ls? [y/N]^[]0;title^G <U+009B>2J <U+202E>🎉");
    }

    @Test
    void errorsAndTheFailureArePrintedOneLineEachAndNeutralised() {
        PromptFollower f = new PromptFollower("p1");
        feed(f, List.of(event("turn_started", data("p1")),
                event("error", data("p1").put("message", "bad key\n\u001b[1Aerror: none")),
                event("turn_completed", data("p1").put("reason", "error\u009b").put("status", "failed")
                        .put("text", "the model said\r\n\u001b]0;owned\u0007"))));
        assertThat(f.errors()).containsExactly("bad key↵^[[1Aerror: none");
        assertThat(f.failure()).contains("the turn ended: error<U+009B> - the model said↵^[]0;owned^G");
    }
}

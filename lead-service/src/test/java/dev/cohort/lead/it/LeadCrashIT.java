package dev.cohort.lead.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * Crash test: lead-service is SIGKILLed in the middle of a scripted two-step turn, while the model is
 * "thinking" about the result of step 1; a new process with the same environment resumes the turn from the last
 * saved step and completes it. Proof that each tool call ran exactly once: the file the calls append to, the tool
 * runner's call record, and the scripted model's request log.
 */
class LeadCrashIT {

    private static final String TEAM = "default";
    private static final String AGENT = TEAM + "/lead";
    private static final String PROMPT = "crash test: append step1 then step2 to log.txt";
    /**
     * Long enough to SIGKILL the lead while it waits for this answer however slow the machine is (the test kills it as
     * soon as the request is seen; nothing waits for the held answer); only the first request waits.
     */
    private static final int THINKING_MS = 120_000;

    /*
     * Rules match on message content, never on call numbers (the restart re-sends a request). The answer to step 1's
     * result exists twice: the first copy (times 1) is slow, so the lead is killed while it waits; the re-sent request
     * after the restart gets the second copy at once. Which copy answered tells the request log's story.
     */
    private static final String SCENARIO = """
            {"rules":[
              {"name":"step1","match":{"agent":"%1$s","lastRole":"user","lastMessage":"^crash test: append step1 then step2 to log\\\\.txt$"},
               "reply":{"toolCalls":[{"id":"call_step1","name":"bash","arguments":{"command":"echo step1 >> log.txt && echo step1-done"}}]}},
              {"name":"final","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"step2-done"},
               "reply":{"text":"both steps done"}},
              {"name":"step2-in-flight","times":1,"match":{"agent":"%1$s","lastRole":"tool","lastMessage":"step1-done"},
               "reply":{"delayMs":%2$d,"toolCalls":[{"id":"call_step2","name":"bash","arguments":{"command":"echo step2 >> log.txt && echo step2-done"}}]}},
              {"name":"step2-resent","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"step1-done"},
               "reply":{"toolCalls":[{"id":"call_step2","name":"bash","arguments":{"command":"echo step2 >> log.txt && echo step2-done"}}]}}
            ]}""".formatted(AGENT, THINKING_MS);

    /*
     * A SIGKILLed consumer never leaves its Kafka group: the broker notices only when its session times out (10 s as
     * lead-service configures it), and until then the team's partition — and so its lead — is assigned to nobody new. A 6 s session
     * (the broker's minimum) keeps this test short; the behaviour is the same, only sooner.
     */
    private static final Map<String, String> SHORT_KAFKA_SESSION = Map.of("JAVA_TOOL_OPTIONS",
            "-Dmp.messaging.incoming.lead-in.session.timeout.ms=6000 -Dmp.messaging.incoming.lead-in.heartbeat.interval.ms=1000");

    @Test
    void aTurnInterruptedBySigkillResumesInANewProcessAndRunsEachToolCallExactlyOnce() throws Exception {
        long t0 = System.nanoTime();
        try (LeadStack stack = LeadStack.start(true, null, SHORT_KAFKA_SESSION)) {
            try {
                crashAndResume(stack, t0);
            } catch (Throwable t) {
                System.out.println("[LeadCrashIT] service logs:\n" + stack.logs());
                throw t;
            }
        }
    }

    private void crashAndResume(LeadStack stack, long t0) throws Exception {
        stack.model().load(SCENARIO);
        long firstPid = stack.leadPid();
        System.out.printf("[LeadCrashIT] services ready after %.1f s%n", secondsSince(t0));
        String promptId = stack.prompt(TEAM, PROMPT);

        // the lead ran step 1, saved its result and now waits for the model's slow answer: kill it right there
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> rulesOf(stack).contains("step2-in-flight"));
        assertThat(Files.readString(stack.workspace().resolve("log.txt"))).isEqualTo("step1\n");
        stack.killLead();
        long killedAt = System.nanoTime();
        assertThat(rulesOf(stack)).containsExactly("step1", "step2-in-flight");

        stack.startLeadAgain();
        assertThat(stack.leadPid()).isNotEqualTo(firstPid);
        System.out.printf("[LeadCrashIT] lead-service restarted (ready %.1f s after the kill)%n", secondsSince(killedAt));

        List<JsonNode> events;
        try (EventStream sse = stack.events(TEAM, 0)) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sse.ofPrompt(promptId).stream().anyMatch(r -> r.type().equals("turn_completed")));
            System.out.printf("[LeadCrashIT] turn completed %.1f s after the kill%n", secondsSince(killedAt));
            // the stream is read from the store in seq order: everything up to turn_completed is there
            events = sse.received().stream().map(EventStream.Received::event).toList();
        }

        // 1. each command ran exactly once: both appended once, in order
        assertThat(Files.readString(stack.workspace().resolve("log.txt"))).isEqualTo("step1\nstep2\n");

        // 2. the tool runner's record: one executed call per call id, both finished; no other call of the model's
        //    (the engine's own housekeeping calls, e.g. skill discovery "skills-glob-1" and the read of the workspace's
        //    hook settings "hook-settings-<uuid>" at each turn start, have ids of their own). The runner stores a call's
        //    result after answering it (off the latency path), so step 2's record may come after the turn: awaited
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                assertThat(toolCalls(stack).stream().filter(c -> !c.get(0).startsWith("skills-") && !c.get(0).startsWith("hook-settings-"))
                        .toList())
                        .containsExactly(List.of("call_step1", "bash", "done"), List.of("call_step2", "bash", "done")));

        // 3. the model's request log: step 1's answer was asked for once; the request in flight when the process died
        //    (its answer never arrived, so nothing of it was saved) is re-sent exactly once by the new process, with
        //    the same conversation; then the final request. No request repeats step 1.
        List<RecordedRequest> requests = requestsOf(stack);
        assertThat(requests).extracting(RecordedRequest::rule).containsExactly("step1", "step2-in-flight", "step2-resent", "final");
        assertThat(requests).extracting(RecordedRequest::status).containsOnly(200);
        assertThat(conversation(requests.get(2))).isEqualTo(conversation(requests.get(1)));

        // 4. the prompt's turn completed once, successfully, without an error event
        List<JsonNode> ofPrompt = events.stream().filter(e -> promptId.equals(e.path("promptId").asText())).toList();
        assertThat(ofPrompt.stream().filter(e -> e.get("type").asText().equals("turn_completed"))
                .map(e -> e.path("data").path("status").asText()).toList()).containsExactly("completed");
        assertThat(events).extracting(e -> e.get("type").asText()).doesNotContain("error");
        assertThat(ofPrompt.stream().filter(e -> e.get("type").asText().equals("assistant_message"))
                .map(e -> e.path("data").path("text").asText()).filter(t -> !t.isEmpty()).toList()).containsExactly("both steps done");
        // the stored event log tells the same story once: no step repeated, no second start for the resumed turn
        assertThat(ofPrompt).extracting(e -> e.get("type").asText()).containsExactly("turn_started",
                "assistant_message", "tool_call_started", "tool_call_finished",
                "assistant_message", "tool_call_started", "tool_call_finished",
                "assistant_message", "turn_completed");
        assertThat(ofPrompt.stream().filter(e -> e.get("type").asText().equals("tool_call_finished"))
                .map(e -> e.path("data").path("callId").asText() + " " + e.path("data").path("preview").asText().strip()).toList())
                .containsExactly("call_step1 step1-done", "call_step2 step2-done");

        // 5. the transcript has both tool results, once each, and the lead is idle again
        HttpResponse<String> transcript = stack.get("/api/v1/teams/" + TEAM + "/agents/lead/messages");
        assertThat(transcript.statusCode()).isEqualTo(200);
        List<String> toolResults = StreamSupport.stream(LeadStack.json(transcript.body()).spliterator(), false)
                .filter(m -> m.path("role").asText().equalsIgnoreCase("tool")).map(JsonNode::toString).toList();
        assertThat(toolResults).hasSize(2);
        assertThat(toolResults.get(0)).contains("step1-done").contains("call_step1");
        assertThat(toolResults.get(1)).contains("step2-done").contains("call_step2");
        HttpResponse<String> agent = stack.get("/api/v1/teams/" + TEAM + "/agents/lead");
        assertThat(LeadStack.json(agent.body()).path("status").asText()).isEqualTo("idle");
    }

    /**
     * The turn's requests: the lead's, whose conversation holds the prompt as a user message (background work after
     * the turn, such as memory extraction, quotes the conversation inside one message instead).
     */
    private static List<RecordedRequest> requestsOf(LeadStack stack) {
        return stack.model().requests().stream().filter(r -> AGENT.equals(r.agent()))
                .filter(r -> StreamSupport.stream(r.body().path("messages").spliterator(), false)
                        .anyMatch(m -> m.path("role").asText().equals("user") && m.path("content").asText().equals(PROMPT)))
                .toList();
    }

    private static List<String> rulesOf(LeadStack stack) {
        return requestsOf(stack).stream().map(RecordedRequest::rule).toList();
    }

    /** The request's messages without the system prompt (which is rebuilt per request). */
    private static List<JsonNode> conversation(RecordedRequest r) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode m : r.body().path("messages")) {
            if (!m.path("role").asText().equals("system")) {
                out.add(m);
            }
        }
        return out;
    }

    private static List<List<String>> toolCalls(LeadStack stack) throws Exception {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT call_id, tool, status FROM toolrunner.tool_calls WHERE team = ? AND agent = 'lead' ORDER BY started_at, call_id")) {
            ps.setString(1, TEAM);
            List<List<String>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(List.of(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
            return rows;
        }
    }

    private static double secondsSince(long t) {
        return (System.nanoTime() - t) / 1e9;
    }
}

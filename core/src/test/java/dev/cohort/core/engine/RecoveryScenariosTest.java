package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.messages;
import static dev.cohort.core.engine.EngineHarness.onWire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.llm.LlmSettings;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Error recovery against the scripted model over HTTP, with a recording sleeper instead of real waits. */
class RecoveryScenariosTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    EngineHarness.Events events;
    final List<Duration> sleeps = Collections.synchronizedList(new ArrayList<>());
    final InMemoryTranscriptStore transcripts = new InMemoryTranscriptStore();

    @BeforeEach
    void setUp() {
        events = new EngineHarness.Events();
        sleeps.clear();
    }

    AgentSession lead(EngineSettings settings) {
        // the gateway has a client for the fallback the fallback scenario switches to
        ModelClient client = new GatewayModelClient(new LlmGateway(EngineHarness.llm(model, Optional.of("backup"))));
        AgentEngine engine = EngineHarness.engine(client, events, List.of()).settings(settings)
                .sleeper(sleeps::add).random(() -> 0.0).transcripts(transcripts).build();
        return engine.open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);
    }

    AgentSession lead() {
        return lead(EngineSettings.defaults());
    }

    List<Event> retries(String action) {
        return events.of(EventType.MODEL_RETRY).stream()
                .filter(e -> e.data().path("action").asText().equals(action)).toList();
    }

    @Test
    void rateLimitedTwiceThenSucceedsHonouringRetryAfter() {
        model.load("""
                {"rules":[
                 {"times":2,"reply":{"error":{"preset":"rate_limit"}}},
                 {"reply":{"text":"ok"}}]}""");

        TurnResult r = lead().run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("ok");
        assertThat(model.requests()).hasSize(3);
        assertThat(sleeps).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1)); // Retry-After: 1
        assertThat(retries("retry")).extracting(e -> e.data().path("status").asInt() + " "
                + e.data().path("code").asText() + " " + e.data().path("delayMs").asLong())
                .containsExactly("429 " + onWire("rate_limit_exceeded", "rate_limit_error") + " 1000",
                        "429 " + onWire("rate_limit_exceeded", "rate_limit_error") + " 1000");
    }

    @Test
    void retryAfterMsWinsOverRetryAfterSeconds() {
        model.load("""
                {"rules":[
                 {"times":1,"reply":{"error":{"preset":"rate_limit","retryAfter":"20","retryAfterMs":"250"}}},
                 {"reply":{"text":"ok"}}]}""");

        assertThat(lead().run("hi").reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(sleeps).containsExactly(Duration.ofMillis(250));
    }

    @Test
    void serverErrorsAreRetriedWithExponentialBackoffAndNoSleepAfterTheLastAttempt() {
        model.load("""
                {"rules":[{"reply":{"error":{"preset":"server_error"}}}]}""");

        TurnResult r = lead(EngineSettings.defaults().withRecovery(RecoverySettings.defaults().withMaxAttempts(4)))
                .run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(r.text()).isEqualTo("The model is unavailable: 4 attempts failed; the last one with HTTP 500 "
                + onWire("server_error", "api_error") + ": The server had an error while processing your request."
                + " Sorry about that!");
        assertThat(model.requests()).hasSize(4);
        assertThat(sleeps).containsExactly(Duration.ofMillis(500), Duration.ofMillis(1000), Duration.ofMillis(2000));
        assertThat(events.of(EventType.ERROR)).hasSize(1);
    }

    @Test
    void unusable200AnswersAreRetriedAsBadResponsesAndNamedPlainlyWhenTheyNeverStop() {
        String noChoices = "{\\\"id\\\":\\\"x\\\",\\\"object\\\":\\\"chat.completion\\\",\\\"choices\\\":[]}";
        String noMessage = "{\\\"id\\\":\\\"x\\\",\\\"object\\\":\\\"chat.completion\\\","
                + "\\\"choices\\\":[{\\\"index\\\":0,\\\"finish_reason\\\":\\\"stop\\\"}]}";
        model.load("""
                {"rules":[
                 {"times":1,"reply":{"rawBody":"%s"}},
                 {"times":1,"reply":{"rawBody":"%s"}},
                 {"reply":{"text":"ok"}}]}""".formatted(noChoices, noMessage));

        TurnResult r = lead().run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("ok");
        assertThat(model.requests()).hasSize(3);
        assertThat(retries("retry")).extracting(e -> e.data().path("kind").asText())
                .containsExactly("bad_response", "bad_response");

        model.load("""
                {"rules":[{"reply":{"rawBody":"%s"}}]}""".formatted(noMessage));
        TurnResult failed = lead(EngineSettings.defaults().withRecovery(RecoverySettings.defaults().withMaxAttempts(2)))
                .run("hi");
        assertThat(failed.reason()).isEqualTo(StopReason.ERROR);
        assertThat(failed.text()).startsWith("The model is unavailable: 2 attempts failed; the last one with bad_response: "
                + "the model's answer is not a usable " + onWire("chat completion", "message")
                + ": a field the answer must have is missing")
                .doesNotContain("langchain4j");
    }

    @Test
    void threeOverloadsSwitchToTheFallbackModelForTheRestOfTheTurn() {
        model.load("""
                {"rules":[
                 {"match":{"model":"scripted"},"reply":{"error":{"preset":"overloaded"}}},
                 {"match":{"model":"backup","hasToolResult":false},"reply":{"toolCalls":[{"id":"g1","name":"glob","arguments":{"pattern":"*"}}]}},
                 {"match":{"model":"backup","lastRole":"tool"},"reply":{"text":"done on {{model}}"}}]}""");

        TurnResult r = lead(EngineSettings.defaults().withRecovery(RecoverySettings.defaults()
                .withFallbackModel("backup"))).run("list files");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("done on backup");
        assertThat(model.requests()).extracting(RecordedRequest::model)
                .containsExactly("scripted", "scripted", "scripted", "backup", "backup");
        assertThat(retries("fallback")).singleElement().satisfies(e -> {
            assertThat(e.data().path("from").asText()).isEqualTo("primary");
            assertThat(e.data().path("to").asText()).isEqualTo("backup");
        });
        assertThat(sleeps).hasSize(3);
    }

    @Test
    void anInvalidApiKeyStopsTheTurnAtOnceWithAClearMessage() {
        model.load("""
                {"rules":[{"reply":{"error":{"preset":"invalid_api_key"}}}]}""");

        TurnResult r = lead().run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(r.text()).startsWith("The model provider refused the credentials (HTTP 401 "
                + onWire("invalid_api_key", "authentication_error") + ": Incorrect API key provided")
                .endsWith("Check the API key (cohort.llm.api-key / OPENAI_API_KEY, or cohort.llm.anthropic.api-key /"
                        + " ANTHROPIC_API_KEY for Anthropic); not retried.");
        assertThat(model.requests()).hasSize(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void anExhaustedQuotaIsNotRetried() {
        model.load("""
                {"rules":[{"reply":{"error":{"preset":"insufficient_quota"}}}]}""");

        TurnResult r = lead().run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(r.text()).startsWith("The model provider's quota is exhausted (HTTP " + onWire("429 insufficient_quota:",
                "400 invalid_request_error: Your credit balance is too low"));
        assertThat(model.requests()).hasSize(1);
        assertThat(sleeps).isEmpty();
        assertThat(events.of(EventType.MODEL_RETRY)).isEmpty();
    }

    @Test
    void aTruncatedAnswerRaisesTheLimitContinuesAndIsJoinedIntoOneAnswer() {
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"text":"Once upon a time, ","finishReason":"length"}},
                 {"match":{"lastMessage":"output limit was reached"},"reply":{"text":"the end."}}]}""");
        AgentSession lead = lead();

        TurnResult r = lead.run("write a long story");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("Once upon a time, the end.");
        List<RecordedRequest> req = model.requests();
        assertThat(req).hasSize(2);
        assertThat(maxTokens(req.get(0))).isEqualTo(8000);
        assertThat(maxTokens(req.get(1))).isEqualTo(16384); // 64000 capped by the model's configured maximum
        assertThat(messages(req.get(1))).extracting(m -> m.path("role").asText() + ":" + m.path("content").asText())
                .contains("assistant:Once upon a time, ");
        assertThat(lead.snapshot().messages()).extracting(Message::role, Message::content).containsExactly(
                Tuple.tuple(Message.Role.USER, "write a long story"),
                Tuple.tuple(Message.Role.ASSISTANT, "Once upon a time, the end."));
        assertThat(events.of(EventType.MODEL_RETRY)).extracting(e -> e.data().path("action").asText())
                .containsExactly("escalate_max_tokens", "continue");
    }

    @Test
    void truncatedToolCallsAreRegeneratedOnceThenAnsweredWithPlaceholdersAndBounded() {
        model.load("""
                {"rules":[
                 {"reply":{"toolCalls":[{"id":"w","name":"write_file","arguments":{"path":"a.txt","content":"x"}}],"finishReason":"length"}}]}""");

        TurnResult r = lead().run("write a huge file");

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(r.text()).isEqualTo("Stopped: the model's tool calls were cut off at the output limit 3 times in "
                + "this turn.");
        assertThat(model.requests()).hasSize(4); // 1 regenerated with the raised limit + 3 answered with placeholders
        assertThat(dir.resolve("a.txt")).doesNotExist();
    }

    @Test
    void aContextLengthErrorIsAnsweredByReactiveCompactionOnce() {
        model.load("""
                {"rules":[
                 {"match":{"system":"summarise a coding agent"},"reply":{"text":"SUMMARY: the user said hi"}},
                 {"match":{"call":1},"reply":{"error":{"preset":"context_length_exceeded"}}},
                 {"reply":{"text":"hello again"}}]}""");
        AgentSession lead = lead();

        TurnResult r = lead.run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("hello again");
        List<RecordedRequest> req = model.requests();
        assertThat(req).hasSize(3);
        assertThat(messages(req.get(2))).extracting(m -> m.path("content").asText())
                .anySatisfy(c -> assertThat(c).contains("SUMMARY: the user said hi"))
                .contains("hi");
        assertThat(events.of(EventType.COMPACTED)).singleElement()
                .satisfies(e -> assertThat(e.data().path("reason").asText()).isEqualTo("reactive"));
        assertThat(sleeps).isEmpty();
    }

    @Test
    void aSecondContextLengthErrorInTheSameTurnEndsItWithAClearMessage() {
        model.load("""
                {"rules":[
                 {"match":{"system":"summarise a coding agent"},"reply":{"text":"SUMMARY"}},
                 {"reply":{"error":{"preset":"context_length_exceeded"}}}]}""");

        TurnResult r = lead().run("hi");

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(r.text()).startsWith("The conversation is still too long for the model's context window after "
                + "compacting it once in this turn (HTTP 400 " + onWire("context_length_exceeded:",
                "invalid_request_error: prompt is too long:"));
        assertThat(model.requests()).hasSize(3);
    }

    private static int maxTokens(RecordedRequest r) {
        return r.body().has("max_tokens") ? r.body().path("max_tokens").asInt()
                : r.body().path("max_completion_tokens").asInt();
    }
}

package dev.cohort.core.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.engine.recovery.ProviderHttpException;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gateway against a real OpenAI-compatible server (the scripted model over loopback HTTP). */
class LlmGatewayTest {

    static ScriptedModelServer server;
    LlmGateway gateway;

    @BeforeAll
    static void start() {
        server = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.reset();
        gateway = new LlmGateway(new LlmSettings(server.baseUrl(), "sk-test", "primary-model", Optional.of("fallback-model"),
                Duration.ofSeconds(10)));
    }

    @Test
    void everyRequestCarriesTheAgentIdAsOpenAiUserAndTheModel() {
        server.load("{\"rules\":[{\"name\":\"r\",\"match\":{\"agent\":\"team-a/alice\"},\"reply\":{\"text\":\"hi alice\"}}]}");
        ModelClient.Reply r = gateway.chat("team-a/alice", "sys", List.of(Message.user("hello")));
        assertThat(r.text()).isEqualTo("hi alice");
        JsonNode body = server.requests().get(0).body();
        assertThat(body.get("user").asText()).isEqualTo("team-a/alice");
        assertThat(body.get("model").asText()).isEqualTo("primary-model");
        assertThat(body.get("messages").get(0).get("role").asText()).isEqualTo("system");
    }

    @Test
    void toolsModelOverrideAndOutputLimitReachTheWire() {
        server.load("""
                {"rules":[{"name":"t","reply":{"toolCalls":[{"id":"c1","name":"bash","arguments":{"command":"ls"}}]}}]}""");
        ToolSpecification bash = ToolSpecification.builder().name("bash").description("run")
                .parameters(JsonObjectSchema.builder().addStringProperty("command").required("command").build()).build();
        ModelClient.Reply r = gateway.chat(new ModelClient.Request("default/lead", null, List.of(Message.user("list")),
                List.of(bash), "fallback-model", 1234));
        assertThat(r.finishReason()).isEqualTo("tool_calls");
        assertThat(r.toolCalls()).containsExactly(new ModelToolCall("c1", "bash", "{\"command\":\"ls\"}"));
        JsonNode body = server.requests().get(0).body();
        assertThat(body.get("model").asText()).isEqualTo("fallback-model");
        assertThat(body.get("tools").get(0).get("function").get("name").asText()).isEqualTo("bash");
        assertThat(body.get("max_tokens").asInt()).isEqualTo(1234);
    }

    @Test
    void errorsAreNotRetriedByTheClientBecauseRetriesBelongToTheEngine() {
        server.load("{\"rules\":[{\"name\":\"limit\",\"reply\":{\"error\":{\"status\":429}}}]}");
        assertThatThrownBy(() -> gateway.chat("default/lead", null, List.of(Message.user("x"))))
                .isInstanceOfSatisfying(ProviderHttpException.class, e -> assertThat(e.statusCode()).isEqualTo(429));
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void anErrorAnswerKeepsItsHeadersSoRecoveryCanHonourRetryAfter() {
        server.load("{\"rules\":[{\"name\":\"limit\",\"reply\":{\"error\":{\"preset\":\"rate_limit\",\"retryAfter\":\"3\"}}}]}");
        Throwable t = Assertions.catchThrowable(() -> gateway.chat("default/lead", null, List.of(Message.user("x"))));
        assertThat(t).isInstanceOf(ProviderHttpException.class);
        ModelFailure f = ModelFailure.classify(t);
        assertThat(f.kind()).isEqualTo(ModelFailure.Kind.RATE_LIMIT);
        assertThat(f.retryAfter()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void oneClientIsBuiltPerConfiguredModelOnceForAllCalls() {
        server.load("{\"rules\":[{\"name\":\"r\",\"reply\":{\"text\":\"ok {{model}}\"}}]}");
        List<String> built = new ArrayList<>();
        LlmGateway g = new LlmGateway(new LlmSettings(server.baseUrl(), "sk-test", "primary-model",
                Optional.of("fallback-model"), Duration.ofSeconds(10)), (settings, name) -> {
                    built.add(name);
                    return new ChatCompletionsClient(settings, name);
                });
        for (int i = 0; i < 3; i++) {
            assertThat(g.chat("default/lead", null, List.of(Message.user("x"))).text()).isEqualTo("ok primary-model");
            assertThat(g.chat(new ModelClient.Request("default/lead", null, List.of(Message.user("x")), List.of(),
                    "fallback-model", null)).text()).isEqualTo("ok fallback-model");
        }
        assertThat(built).containsExactly("primary-model", "fallback-model");
        assertThat(g.models()).containsExactly("primary-model", "fallback-model");
        assertThat(g.primaryModel()).isEqualTo("primary-model");
        assertThat(g.fallbackModel()).contains("fallback-model");
    }

    @Test
    void withoutAFallbackOrWithTheFallbackEqualToThePrimaryOnlyOneClientIsBuilt() {
        for (Optional<String> fallback : List.of(Optional.<String>empty(), Optional.of("primary-model"))) {
            List<String> built = new ArrayList<>();
            LlmGateway g = new LlmGateway(new LlmSettings(server.baseUrl(), "sk-test", "primary-model", fallback,
                    Duration.ofSeconds(10)), (settings, name) -> {
                        built.add(name);
                        return new ChatCompletionsClient(settings, name);
                    });
            assertThat(built).containsExactly("primary-model");
            assertThat(g.fallbackModel()).isEmpty();
        }
    }

    @Test
    void aModelThatIsNotConfiguredIsRefusedWithAClearErrorAndNothingIsSent() {
        assertThatThrownBy(() -> gateway.chat(new ModelClient.Request("default/lead", null, List.of(Message.user("x")),
                List.of(), "gpt-5-huge", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("model \"gpt-5-huge\" is not configured on this gateway (configured: primary-model, "
                        + "fallback-model; set cohort.llm.model / MODEL_ID or cohort.llm.fallback-model / FALLBACK_MODEL)");
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void settingsFromTheSeedEnvironmentVariables() {
        LlmSettings s = LlmSettings.fromEnv(Map.of("OPENAI_BASE_URL", "http://x/v1", "OPENAI_API_KEY", "sk-secret",
                "MODEL_ID", "m1", "FALLBACK_MODEL", "m2"));
        assertThat(s.baseUrl()).isEqualTo("http://x/v1");
        assertThat(s.modelId()).isEqualTo("m1");
        assertThat(s.fallbackModel()).contains("m2");
        assertThat(s.toString()).doesNotContain("sk-secret");
        LlmSettings d = LlmSettings.fromEnv(Map.of());
        assertThat(d.baseUrl()).isEqualTo(LlmSettings.DEFAULT_BASE_URL);
        assertThat(d.hasApiKey()).isFalse();
        assertThat(d.fallbackModel()).isEmpty();
    }
}

package dev.cohort.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.EventSink;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.RecoverySettings;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.ScriptedModelServer;
import java.lang.reflect.Constructor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's model calls go through the {@link LlmGateway}: its clients (one per configured model, built once) serve
 * every call, and the fallback the engine switches to is the gateway's. Real HTTP to the scripted model; the only
 * test double is a recorder around each real client the gateway builds.
 */
class GatewayEngineTest {

    static ScriptedModelServer server;
    /** Which client (by the model it was built for) served which call (by the model on the wire), in order. */
    final List<String> served = Collections.synchronizedList(new ArrayList<>());
    /** The models the gateway built a client for, in order. */
    final List<String> built = Collections.synchronizedList(new ArrayList<>());
    final List<Duration> sleeps = Collections.synchronizedList(new ArrayList<>());
    final List<Event> events = Collections.synchronizedList(new ArrayList<>());

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
    }

    LlmGateway gateway(Optional<String> fallback) {
        return new LlmGateway(new LlmSettings(server.baseUrl(), "sk-test", "primary-model", fallback,
                Duration.ofSeconds(20)), (settings, name) -> {
                    built.add(name);
                    return new Recording(name, new ChatCompletionsClient(settings, name));
                });
    }

    TurnResult turn(LlmGateway gateway, RecoverySettings recovery) {
        GatewayModelClient client = new GatewayModelClient(gateway);
        EngineSettings settings = client.applyTo(EngineSettings.defaults().withRecovery(recovery));
        AgentEngine engine = AgentEngine.builder().model(client).tools(ToolRegistry.of(List.of()))
                .events((EventSink) events::add).bundledSkills(List.of()).settings(settings)
                .sleeper(sleeps::add).random(() -> 0.0).build();
        assertThat(engine.model()).isSameAs(client);
        AgentContext ctx = AgentContext.of("default", "lead", AgentRole.LEAD,
                (tool, callId, args, target) -> ToolOutcome.failure("no tools in this test"));
        return engine.open(ctx, null).run("hi");
    }

    @Test
    void afterThreeOverloadsTheEngineUsesTheGatewaysFallbackThroughTheFallbacksOwnClient() {
        server.load("""
                {"rules":[
                 {"match":{"model":"primary-model"},"reply":{"error":{"preset":"overloaded","retryAfterMs":"7"}}},
                 {"match":{"model":"backup-model"},"reply":{"text":"answered by {{model}}"}}]}""");
        LlmGateway gateway = gateway(Optional.of("backup-model"));

        TurnResult r = turn(gateway, RecoverySettings.defaults());

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(r.text()).isEqualTo("answered by backup-model");
        assertThat(server.requests()).extracting(RecordedRequest::model)
                .containsExactly("primary-model", "primary-model", "primary-model", "backup-model");
        // each call went through the gateway's client of the model it asked for, and no other client exists
        assertThat(served).containsExactly("primary-model<-primary-model", "primary-model<-primary-model",
                "primary-model<-primary-model", "backup-model<-backup-model");
        assertThat(built).containsExactly("primary-model", "backup-model");
        assertThat(events).filteredOn(e -> e.type() == EventType.MODEL_RETRY
                && e.data().path("action").asText().equals("fallback")).singleElement()
                .satisfies(e -> assertThat(e.data().path("to").asText()).isEqualTo("backup-model"));
        // the gateway's clients keep the error headers: the server's retry-after-ms is what the engine waited
        assertThat(sleeps).containsExactly(Duration.ofMillis(7), Duration.ofMillis(7), Duration.ofMillis(7));
    }

    @Test
    void withoutAFallbackOnTheGatewayTheEngineKeepsRetryingThePrimaryAndNeverSwitches() {
        server.load("""
                {"rules":[{"reply":{"error":{"preset":"overloaded","retryAfterMs":"1"}}}]}""");
        LlmGateway gateway = gateway(Optional.empty());

        TurnResult r = turn(gateway, RecoverySettings.defaults().withMaxAttempts(5));

        assertThat(r.reason()).isEqualTo(StopReason.ERROR);
        assertThat(r.text()).startsWith("The model is unavailable: 5 attempts failed");
        assertThat(server.requests()).extracting(RecordedRequest::model).containsOnly("primary-model").hasSize(5);
        assertThat(built).containsExactly("primary-model");
        assertThat(events).noneMatch(e -> e.type() == EventType.MODEL_RETRY
                && e.data().path("action").asText().equals("fallback"));
    }

    @Test
    void applyToGivesTheEngineTheGatewaysPrimaryAndFallbackOverWhateverTheSettingsSaid() {
        GatewayModelClient client = new GatewayModelClient(gateway(Optional.of("backup-model")));

        EngineSettings s = client.applyTo(EngineSettings.defaults().withModel("elsewhere")
                .withRecovery(RecoverySettings.defaults().withFallbackModel("another")));

        assertThat(s.model()).isEqualTo("primary-model");
        assertThat(s.recovery().fallbackModel()).isEqualTo("backup-model");
        assertThat(new GatewayModelClient(gateway(Optional.empty())).applyTo(s).recovery().fallbackModel()).isNull();
    }

    @Test
    void aGatewayModelClientBuildsNoClientOfItsOwnItsOnlyConstructorTakesTheGateway() {
        Constructor<?>[] constructors = GatewayModelClient.class.getConstructors();

        assertThat(Arrays.stream(constructors).map(c -> List.of(c.getParameterTypes())))
                .containsExactly(List.of(LlmGateway.class));
        GatewayModelClient a = new GatewayModelClient(gateway(Optional.of("backup-model")));
        assertThat(built).containsExactly("primary-model", "backup-model");
        assertThat(a.gateway().models()).containsExactly("primary-model", "backup-model");
    }

    /** A real client that notes which model's client served a call. */
    private final class Recording implements ModelClient {
        private final String builtFor;
        private final ModelClient real;

        Recording(String builtFor, ModelClient real) {
            this.builtFor = builtFor;
            this.real = real;
        }

        @Override
        public Reply chat(Request request) {
            served.add(builtFor + "<-" + request.model());
            return real.chat(request);
        }
    }
}

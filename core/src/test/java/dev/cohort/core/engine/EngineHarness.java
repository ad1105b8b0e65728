package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.hooks.Hook;
import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.llm.LlmSettings;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.subagent.SpawnSubagentTool;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.ScriptedModelServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.StreamSupport;

/** Shared test wiring: the engine over HTTP against the scripted model, with a local workspace. */
final class EngineHarness {
    private EngineHarness() {
    }

    static ModelClient modelClient(ScriptedModelServer server) {
        return new GatewayModelClient(new LlmGateway(llm(server, Optional.empty())));
    }

    /**
     * The settings of a gateway on the scripted server, on the wire {@code -Dcohort.test.llm.provider} names
     * ({@code openai}, the default, or {@code anthropic}): the build runs the provider-sensitive scenario tests on both
     * (core's pom, execution {@code anthropic-wire}).
     */
    /** {@code true} when this run's scenario tests speak Anthropic's Messages API to the scripted model. */
    static boolean anthropicWire() {
        return LlmSettings.ANTHROPIC.equals(System.getProperty("cohort.test.llm.provider"));
    }

    /** What the wire of this run names a failure or an answer: OpenAI's words, or Anthropic's. */
    static String onWire(String openai, String anthropic) {
        return anthropicWire() ? anthropic : openai;
    }

    static LlmSettings llm(ScriptedModelServer server, Optional<String> fallback) {
        return new LlmSettings(server.baseUrl(), "sk-test", "scripted", fallback, Duration.ofSeconds(20),
                System.getProperty("cohort.test.llm.provider", LlmSettings.OPENAI), Map.of(), server.baseUrl(),
                "sk-ant-test");
    }

    static List<Tool> standardTools(Tool... extra) {
        List<Tool> t = new ArrayList<>(WorkspaceToolsFixture.tools("bash", "read_file", "write_file", "edit_file", "glob",
                "grep"));
        t.addAll(List.of(new TodoWriteTool(), new SpawnSubagentTool(), new LoadSkillTool()));
        t.addAll(List.of(extra));
        return t;
    }

    static AgentEngine.Builder engine(ModelClient model, Events events, List<? extends Hook> hooks, Tool... extra) {
        return AgentEngine.builder().model(model).tools(ToolRegistry.of(standardTools(extra))).events(events)
                .hooks(hooks).bundledSkills(List.of());
    }

    /** Records events. */
    static final class Events implements EventSink {
        final List<Event> all = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void emit(Event event) {
            all.add(event);
        }

        List<Event> of(EventType type) {
            return all.stream().filter(e -> e.type() == type).toList();
        }

        /** The data of the events of one type, in order. */
        List<JsonNode> dataOf(EventType type) {
            return of(type).stream().map(Event::data).toList();
        }
    }

    /** Records approval requests and answers from a script. */
    static final class Approvals implements ApprovalGateway {
        final List<Request> asked = Collections.synchronizedList(new ArrayList<>());
        private final boolean approve;

        Approvals(boolean approve) {
            this.approve = approve;
        }

        @Override
        public Decision check(Request request) {
            asked.add(request);
            return approve ? Decision.approve() : Decision.deny("the user said no");
        }
    }

    static List<JsonNode> messages(RecordedRequest r) {
        return StreamSupport.stream(r.body().path("messages").spliterator(), false).toList();
    }

    static String system(RecordedRequest r) {
        return messages(r).stream().filter(m -> m.path("role").asText().equals("system"))
                .map(m -> m.path("content").asText()).findFirst().orElse("");
    }

    /** The contents of the tool messages of a request, in order. */
    static List<String> toolResults(RecordedRequest r) {
        return messages(r).stream().filter(m -> m.path("role").asText().equals("tool"))
                .map(m -> m.path("content").asText()).toList();
    }

    static List<String> toolNamesOffered(RecordedRequest r) {
        return StreamSupport.stream(r.body().path("tools").spliterator(), false)
                .map(t -> t.path("function").path("name").asText()).toList();
    }

    static String lastContent(RecordedRequest r) {
        List<JsonNode> m = messages(r);
        return m.get(m.size() - 1).path("content").asText();
    }
}

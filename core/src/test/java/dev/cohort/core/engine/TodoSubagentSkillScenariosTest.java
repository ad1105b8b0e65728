package dev.cohort.core.engine;

import dev.cohort.core.testing.ScriptedModelTestBase;
import static dev.cohort.core.engine.EngineHarness.lastContent;
import static dev.cohort.core.engine.EngineHarness.messages;
import static dev.cohort.core.engine.EngineHarness.system;
import static dev.cohort.core.engine.EngineHarness.toolNamesOffered;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.todo.TodoItem;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed's todo, subagent and skills "try these prompts". */
class TodoSubagentSkillScenariosTest extends ScriptedModelTestBase {
    static final String REMINDER = "<reminder>Update your todo list";
    @TempDir
    Path dir;
    LocalWorkspace ws;
    AgentEngine engine;

    @BeforeEach
    void reset() {
        ws = new LocalWorkspace(dir);
        engine = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of())
                .settings(EngineSettings.defaults().withSubagentMaxModelCalls(3)).build();
    }

    private AgentSession lead() {
        return engine.open(AgentContext.of("default", "lead", AgentRole.LEAD, ws), null);
    }

    @Test
    void s05TheReminderFiresAfterThreeRoundsWithoutAnUpdateWhileTodosAreUnfinished() {
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"toolCalls":[{"name":"todo_write","arguments":{"todos":[
                   {"content":"add type hints","status":"in_progress"},{"content":"add docstrings","status":"pending"},
                   {"content":"add main guard","status":"pending"}]}}]}},
                 {"match":{"lastMessage":"<reminder>"},"reply":{"text":"ok, updating"}},
                 {"match":{"call":2},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 2"}}]}},
                 {"match":{"call":3},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 3"}}]}},
                 {"match":{"call":4},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 4"}}]}}]}""");

        TurnResult r = lead().run("Refactor example/hello.py: list 3 steps first, then execute");

        List<RecordedRequest> req = model.requests();
        // call 1 todo_write (reset), calls 2,3,4 bash rounds → 3 rounds without update → reminder before call 5
        assertThat(req).hasSize(5);
        assertThat(req.subList(0, 4)).allSatisfy(q -> assertThat(lastContent(q)).doesNotContain(REMINDER));
        assertThat(lastContent(req.get(4))).startsWith(REMINDER);
        assertThat(r.text()).isEqualTo("ok, updating");
    }

    @Test
    void s05NoReminderWhenThereAreNoUnfinishedTodos() {
        model.load("""
                {"rules":[
                 {"match":{"call":6},"reply":{"text":"finished"}},
                 {"match":{"call":1},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 1"}}]}},
                 {"match":{"call":2},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 2"}}]}},
                 {"match":{"call":3},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 3"}}]}},
                 {"match":{"call":4},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 4"}}]}},
                 {"match":{"call":5},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo 5"}}]}}]}""");

        lead().run("just run some commands");

        assertThat(model.requests()).hasSize(6).allSatisfy(q ->
                assertThat(messages(q).stream().map(m -> m.path("content").asText())).noneMatch(c -> c.startsWith(REMINDER)));
    }

    @Test
    void s05AnInvalidListChangesNothingAndTodosSurviveSaveAndRestore() {
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"toolCalls":[{"name":"todo_write","arguments":{"todos":[
                   {"content":"a","status":"in_progress"},{"content":"b","status":"pending"}]}}]}},
                 {"match":{"call":2},"reply":{"toolCalls":[{"name":"todo_write","arguments":{"todos":[
                   {"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}}]}},
                 {"reply":{"text":"done"}}]}""");
        AgentSession lead = lead();

        lead.run("plan");

        assertThat(toolResults(model.requests().get(2)).get(1)).isEqualTo("Error: todo list not updated: only one "
                + "todo may be in_progress at a time, found 2");
        AgentState restored = AgentState.fromJson(lead.snapshot().toJson());
        assertThat(restored.todos()).containsExactly(new TodoItem("a", "in_progress"), new TodoItem("b", "pending"));
        assertThat(restored).isEqualTo(lead.snapshot());
    }

    @Test
    void s06TheSubagentsIntermediateMessagesStayOutOfTheParentAndItsFileRemains() throws Exception {
        model.load("""
                {"rules":[
                 {"match":{"agent":"default/lead","hasToolResult":false},"reply":{"toolCalls":[{"id":"s1","name":"spawn_subagent",
                   "arguments":{"description":"create example/string_tools.py with slugify(text: str)"}}]}},
                 {"match":{"agent":"default/lead/sub","hasToolResult":false},"reply":{"text":"writing it","toolCalls":[{"id":"w","name":"write_file",
                   "arguments":{"path":"example/string_tools.py","content":"def slugify(text: str) -> str:\\n    return text.lower().replace(' ', '-')\\n"}}]}},
                 {"match":{"agent":"default/lead/sub"},"reply":{"text":"Created example/string_tools.py with slugify."}},
                 {"match":{"agent":"default/lead","lastRole":"tool"},"reply":{"text":"Verified: {{lastMessage}}"}}]}""");

        TurnResult r = lead().run("Use spawn_subagent to create example/string_tools.py, then verify it");

        assertThat(r.text()).isEqualTo("Verified: Created example/string_tools.py with slugify.");
        assertThat(dir.resolve("example/string_tools.py")).content().contains("def slugify(text: str)");
        RecordedRequest parentSecond = model.requests().stream().filter(q -> q.agent().equals("default/lead")).toList().get(1);
        assertThat(messages(parentSecond).stream().filter(m -> !m.path("role").asText().equals("system"))
                .map(m -> m.toString())).noneMatch(m -> m.contains("writing it")
                || m.contains("write_file"));
        RecordedRequest subFirst = model.requests().stream().filter(q -> q.agent().equals("default/lead/sub")).findFirst().orElseThrow();
        assertThat(toolNamesOffered(subFirst)).containsExactlyInAnyOrder("bash", "read_file", "write_file", "edit_file",
                "glob", "grep");
        assertThat(messages(subFirst).get(1).path("content").asText())
                .isEqualTo("create example/string_tools.py with slugify(text: str)");
        assertThat(system(subFirst)).contains("You are a subagent");
    }

    @Test
    void s06ASubagentThatHitsItsCapSaysSoAndCannotSpawnAnother() {
        model.load("""
                {"rules":[
                 {"match":{"agent":"default/lead","hasToolResult":false},"reply":{"toolCalls":[{"name":"spawn_subagent",
                   "arguments":{"description":"explore"}}]}},
                 {"match":{"agent":"default/lead/sub"},"reply":{"text":"still looking","toolCalls":[{"name":"spawn_subagent","arguments":{"description":"nested"}}]}},
                 {"match":{"agent":"default/lead"},"reply":{"text":"parent got: {{lastMessage}}"}}]}""");

        TurnResult r = lead().run("explore with a subagent");

        assertThat(r.text()).startsWith("parent got: Error: The subagent reached its limit of 3 model calls without a final answer.");
        List<RecordedRequest> sub = model.requests().stream().filter(q -> q.agent().equals("default/lead/sub")).toList();
        assertThat(sub).hasSize(3);
        assertThat(toolResults(sub.get(1)).get(0)).startsWith("Error: tool 'spawn_subagent' is not available to this agent (subagent)");
    }

    @Test
    void s07TheCatalogueIsInTheSystemPromptAndLoadSkillReturnsTheBodyWithoutFrontmatter() throws Exception {
        Files.createDirectories(dir.resolve("skills/code-review"));
        Files.writeString(dir.resolve("skills/code-review/SKILL.md"), """
                ---
                name: code-review
                description: "Read-only review: suggestions only --- never edits"
                when_to_use: when asked to review code
                ---
                # Review procedure
                Only suggest; never edit.
                """);
        model.load("""
                {"rules":[
                 {"match":{"lastUserMessage":"Which skills","hasToolResult":false},"reply":{"text":"Skills: see catalogue"}},
                 {"match":{"hasToolResult":false},"reply":{"toolCalls":[{"name":"load_skill","arguments":{"name":"code-review"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"loaded"}}]}""");
        AgentSession lead = lead();

        lead.run("Which skills are available?");
        lead.run("Load the code-review skill and follow it");

        List<RecordedRequest> req = model.requests();
        assertThat(system(req.get(0))).contains("Available skills (load with load_skill):\n- code-review: Read-only "
                + "review: suggestions only --- never edits (use when: when asked to review code)"
                + " [workspace file skills/code-review/SKILL.md]");
        assertThat(req.get(0).body().path("messages").size()).isEqualTo(2);
        // a workspace skill is a file agents can write: its body says so and has that file's authority
        assertThat(toolResults(req.get(2))).containsExactly("<skill name=\"code-review\" source=\"workspace file"
                + " skills/code-review/SKILL.md\">\n" + LoadSkillTool.WORKSPACE_NOTE + "\n# Review procedure\n"
                + "Only suggest; never edit.\n</skill>");
        assertThat(lead.snapshot().loadedSkills()).containsExactly("code-review");

        Files.writeString(dir.resolve("skills/code-review/SKILL.md"), "---\nname: code-review\ndescription: v2\n---\nbody2\n");
        model.load("""
                {"rules":[{"reply":{"text":"ok"}}]}""");
        lead.run("again");
        assertThat(system(model.requests().get(model.requests().size() - 1))).contains("- code-review: v2");
    }
}

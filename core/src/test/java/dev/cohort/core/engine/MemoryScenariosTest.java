package dev.cohort.core.engine;

import dev.cohort.core.memory.MemoryTestBase;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.memory.Memory;
import dev.cohort.core.memory.MemoryType;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The four s09 "try these prompts" across two sessions (a restart in between: two engines sharing one memory
 * store on disk).
 */
class MemoryScenariosTest extends MemoryTestBase {
    @Test
    void theFourTryThesePromptsAcrossARestart() throws Exception {
        String scenario = """
                {"rules":[
                 {"match":{"system":"You select memories"},"reply":{"text":"Relevant: [0]"}},
                 {"match":{"system":"You extract memories","lastMessage":"I prefer Tab indentation"},"reply":{"text":
                   "Here you go:\\n```json\\n[{\\"name\\":\\"User preference: Tabs\\",\\"type\\":\\"user\\",\\"description\\":\\"Prefers tabs for indentation\\",\\"body\\":\\"Indent code with Tab characters, not spaces.\\"}]\\n```"}},
                 {"match":{"system":"You extract memories","lastMessage":"single quotes"},"reply":{"text":
                   "[{\\"name\\":\\"user-preference-tabs\\",\\"type\\":\\"user\\",\\"description\\":\\"Prefers tabs for indentation\\",\\"body\\":\\"Indent code with Tab characters, not spaces.\\"},{\\"name\\":\\"tabs-for-indentation\\",\\"type\\":\\"user\\",\\"description\\":\\"Prefers tabs for indentation\\",\\"body\\":\\"Tabs, please.\\"},{\\"name\\":\\"user-preference-single-quotes\\",\\"type\\":\\"user\\",\\"description\\":\\"Prefers single quotes for strings\\",\\"body\\":\\"Use single quotes rather than double quotes for string literals.\\"}]"}},
                 {"match":{"system":"You extract memories"},"reply":{"text":"[]"}},
                 {"match":{"lastUserMessage":"I prefer Tab indentation"},"reply":{"text":"Noted: tabs."}},
                 {"match":{"lastUserMessage":"test.py","hasToolResult":false},"reply":{"toolCalls":[{"id":"w1","name":"write_file",
                   "arguments":{"path":"test.py","content":"def main():\\n\\tprint('hi')\\n"}}]}},
                 {"match":{"lastUserMessage":"test.py","lastRole":"tool"},"reply":{"text":"Created test.py, indented with tabs."}},
                 {"match":{"lastUserMessage":"preferences before"},"reply":{"text":"Yes: you prefer Tab indentation."}},
                 {"match":{"lastUserMessage":"single quotes"},"reply":{"text":"Noted: single quotes."}}]}""";
        model.load(scenario);
        Files.createDirectories(dir.resolve("ws"));
        var ws = new LocalWorkspace(dir.resolve("ws"));

        // session 1
        AgentSession first = newSession(ws);
        assertThat(first.run("I prefer Tab indentation rather than spaces. Please remember this.").reason())
                .isEqualTo(StopReason.COMPLETED);
        assertThat(store.all()).isEmpty(); // extraction is off the turn's critical path
        runBackground();
        assertThat(store.all()).containsExactly(new Memory("user-preference-tabs", MemoryType.USER,
                "Prefers tabs for indentation", "Indent code with Tab characters, not spaces."));
        assertThat(Files.readString(dir.resolve("memory/user-preference-tabs.md"))).startsWith("""
                ---
                name: user-preference-tabs
                description: Prefers tabs for indentation
                type: user
                ---
                """);

        // restart: a new engine and session, the same store
        model.reset();
        model.load(scenario);
        AgentSession second = newSession(ws);
        assertThat(second.run("Create a Python file named test.py").reason()).isEqualTo(StopReason.COMPLETED);
        runBackground();
        assertThat(Files.readString(dir.resolve("ws/test.py"))).isEqualTo("def main():\n\tprint('hi')\n");
        List<RecordedRequest> mains = model.requests().stream().filter(r -> r.body().has("tools")).toList();
        assertThat(mains).hasSize(2).allSatisfy(r -> assertThat(system(r))
                .contains("- user-preference-tabs (user): Prefers tabs for indentation")
                .contains("<relevant_memories>").contains("Indent code with Tab characters, not spaces."));
        assertThat(requests("You select memories")).hasSize(1); // once per user message, not per model call

        assertThat(second.run("Did I tell you my preferences before?").text()).isEqualTo(
                "Yes: you prefer Tab indentation.");
        runBackground();
        assertThat(requests("You select memories")).hasSize(2);
        RecordedRequest asked = model.requests().stream().filter(r -> r.body().has("tools")).reduce((a, b) -> b)
                .orElseThrow();
        assertThat(system(asked)).contains("Indent code with Tab characters, not spaces.");

        second.run("I also prefer single quotes rather than double quotes for strings.");
        runBackground();
        assertThat(store.all()).extracting(Memory::name).containsExactly("user-preference-single-quotes",
                "user-preference-tabs");
    }
}

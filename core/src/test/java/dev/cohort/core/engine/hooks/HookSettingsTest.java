package dev.cohort.core.engine.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.protocol.Json;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** Claude Code's hooks format: what is accepted, and a clear error naming the field for what is not. */
class HookSettingsTest {

    private static List<CommandHook> parse(String json) throws Exception {
        return HookSettings.parse(Json.MAPPER.readTree(json), "team settings");
    }

    @Test
    void aClaudeCodeHooksObjectBecomesOneCommandHookPerEntry() throws Exception {
        List<CommandHook> hooks = parse("""
                {"PreToolUse": [{"matcher": "bash|write_file", "hooks": [
                   {"type": "command", "command": "./check.sh", "timeout": 30}, {"command": "./audit.sh"}]},
                  {"matcher": "*", "hooks": [{"type": "command", "command": "./all.sh"}]}],
                 "Stop": [{"matcher": "ignored-here", "hooks": [{"type": "command", "command": "./stop.sh"}]}]}""");

        assertThat(hooks).extracting(CommandHook::event, CommandHook::command, CommandHook::timeoutSeconds).containsExactly(
                Tuple.tuple(CommandHook.Event.PRE_TOOL_USE, "./check.sh", 30),
                Tuple.tuple(CommandHook.Event.PRE_TOOL_USE, "./audit.sh", 60),
                Tuple.tuple(CommandHook.Event.PRE_TOOL_USE, "./all.sh", 60),
                Tuple.tuple(CommandHook.Event.STOP, "./stop.sh", 60));
        assertThat(hooks.get(0).matcher().pattern()).isEqualTo("bash|write_file");
        assertThat(hooks.get(2).matcher()).isNull();
        assertThat(hooks.get(3).matcher()).isNull();
    }

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> parse("{\"PreCompact\": []}")).isInstanceOf(HookSettings.InvalidHookSettings.class)
                .hasMessageContaining("hooks.PreCompact: unknown event \"PreCompact\"; one of UserPromptSubmit, PreToolUse");
        assertThatThrownBy(() -> parse("{\"PreToolUse\": [{\"matcher\": \"[\", \"hooks\": [{\"command\": \"x\"}]}]}"))
                .hasMessageStartingWith("hooks.PreToolUse[0].matcher: invalid regex \"[\"");
        assertThatThrownBy(() -> parse("{\"PreToolUse\": [{\"hooks\": [{\"command\": \"x\"}, {\"type\": \"command\"}]}]}"))
                .hasMessageStartingWith("hooks.PreToolUse[0].hooks[1].command: required");
        assertThatThrownBy(() -> parse("{\"Stop\": [{\"hooks\": [{\"command\": \"x\", \"timeout\": 601}]}]}"))
                .hasMessageStartingWith("hooks.Stop[0].hooks[0].timeout: must be a whole number of seconds from 1 to 600");
        assertThatThrownBy(() -> parse("{\"Stop\": [{\"hooks\": [{\"command\": \"x\", \"timeout\": 0}]}]}"))
                .hasMessageStartingWith("hooks.Stop[0].hooks[0].timeout");
        assertThatThrownBy(() -> parse("{\"Stop\": [{\"hooks\": [{\"command\": \"x\", \"type\": \"prompt\"}]}]}"))
                .hasMessageStartingWith("hooks.Stop[0].hooks[0].type: unsupported type \"prompt\"");
        assertThatThrownBy(() -> parse("{\"Stop\": [{\"hooks\": []}]}")).hasMessageStartingWith("hooks.Stop[0].hooks: required");
        assertThatThrownBy(() -> parse("[]")).hasMessageStartingWith("hooks: must be an object");
    }

    @Test
    void aSettingsFileIsReadForItsHooksOnlyAndBadJsonSaysWhere() {
        assertThat(HookSettings.parseFile("{\"env\": {\"A\": \"1\"}}", ".cohort/settings.json")).isEmpty();
        assertThat(HookSettings.parseFile("{\"hooks\": {\"UserPromptSubmit\": [{\"hooks\": [{\"command\": \"date\"}]}]}}",
                ".cohort/settings.json")).singleElement().satisfies(h -> assertThat(h.origin()).isEqualTo(".cohort/settings.json"));
        assertThatThrownBy(() -> HookSettings.parseFile("{\"hooks\": {\n  \"Stop\": [,]}}", "f"))
                .hasMessageContaining("not valid JSON").hasMessageContaining("line 2");
    }
}

package dev.cohort.host.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.Toolsets;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.workspace.GlobTool;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** An engine gets the tools of the providers serving its role, and only those. */
class ToolProviderRolesTest {

    /** A provider with the given roles, tools and order. */
    private record Fake(Set<AgentRole> roles, List<Tool> tools, int order) implements ToolProvider {
    }

    private static List<String> names(List<Tool> tools) {
        return tools.stream().map(Tool::name).toList();
    }

    private static final List<ToolProvider> BUILT_IN = List.of(new LeadSessionToolProvider(), new SharedToolProvider());

    @Test
    void aTeammateDoesNotGetLeadOnlyTools() {
        List<String> teammate = names(EngineAssembly.toolsFor(AgentRole.TEAMMATE, BUILT_IN));
        assertThat(teammate).doesNotContain("spawn_subagent", "compact").contains("bash", "todo_write", "load_skill");
        assertThat(Toolsets.TEAMMATE).containsAll(teammate);
    }

    @Test
    void theLeadGetsTheSharedToolsAndItsOwnAllInItsAllowlist() {
        List<String> lead = names(EngineAssembly.toolsFor(AgentRole.LEAD, BUILT_IN));
        assertThat(lead).containsExactly("bash", "read_file", "write_file", "edit_file", "glob", "grep",
                "check_background", "cancel_background", "todo_write", "load_skill", "spawn_subagent", "compact");
        assertThat(Toolsets.LEAD).containsAll(lead);
    }

    @Test
    void providersComeInTheirOrderWhateverTheOrderTheyAreFoundIn() {
        ToolProvider late = new Fake(Set.of(AgentRole.LEAD), List.of(new TodoWriteTool()), 50);
        ToolProvider early = new Fake(Set.of(AgentRole.LEAD, AgentRole.TEAMMATE), List.of(new GlobTool()), 5);
        assertThat(names(EngineAssembly.toolsFor(AgentRole.LEAD, List.of(late, early)))).containsExactly("glob",
                "todo_write");
        assertThat(names(EngineAssembly.toolsFor(AgentRole.TEAMMATE, List.of(late, early)))).containsExactly("glob");
        assertThat(EngineAssembly.toolsFor(AgentRole.SUBAGENT, List.of(late, early))).isEmpty();
    }

    @Test
    void twoProvidersOfferingOneNameToARoleFailTheAssembly() {
        ToolProvider again = new Fake(Set.of(AgentRole.TEAMMATE), List.of(new GlobTool()), 200);
        List<ToolProvider> all = List.of(new SharedToolProvider(), again);
        assertThatThrownBy(() -> ToolRegistry.of(EngineAssembly.toolsFor(AgentRole.TEAMMATE, all)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("duplicate tool name 'glob'");
        // the lead is not served by the second one: no clash there
        assertThat(ToolRegistry.of(EngineAssembly.toolsFor(AgentRole.LEAD, all)).names()).contains("glob");
    }
}

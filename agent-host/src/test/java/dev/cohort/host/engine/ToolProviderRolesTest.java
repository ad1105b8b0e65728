package dev.cohort.host.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ForwardingTool;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolNames;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * An engine gets the tool runner's workspace tools for its role, then the tools of the providers serving its role, and
 * only tools that list the role.
 */
class ToolProviderRolesTest {

    /** A provider with the given roles, tools, order and wrapped workspace tools. */
    private record Fake(Set<AgentRole> roles, List<Tool> tools, int order, Map<String, UnaryOperator<Tool>> wraps)
            implements ToolProvider {
        Fake(Set<AgentRole> roles, List<Tool> tools, int order) {
            this(roles, tools, order, Map.of());
        }
    }

    /** A workspace tool as a provider extends it. */
    private static final class Extended extends ForwardingTool {
        Extended(Tool t) {
            super(t);
        }
    }

    private static final List<Tool> WORKSPACE = WorkspaceToolsFixture.catalogue().all();

    private static List<String> names(List<Tool> tools) {
        return tools.stream().map(Tool::name).toList();
    }

    private static final List<ToolProvider> BUILT_IN = List.of(new LeadSessionToolProvider(), new SharedToolProvider());

    @Test
    void aTeammateDoesNotGetLeadOnlyTools() {
        List<Tool> teammate = EngineAssembly.toolsFor(AgentRole.TEAMMATE, WORKSPACE, BUILT_IN);
        assertThat(names(teammate)).doesNotContain("spawn_subagent", "compact", "create_worktree", "remove_worktree")
                .contains("bash", "file_tree", "todo_write", "load_skill");
        assertThat(teammate).allSatisfy(t -> assertThat(t.roles()).contains(AgentRole.TEAMMATE));
    }

    @Test
    void theLeadGetsTheWorkspaceToolsFirstThenTheSharedToolsAndItsOwn() {
        List<String> lead = names(EngineAssembly.toolsFor(AgentRole.LEAD, WORKSPACE, BUILT_IN));
        assertThat(lead).containsExactly("bash", "cancel_background", "check_background", "create_worktree",
                "edit_file", "file_tree", "glob", "grep", "keep_worktree", "list_worktrees", "read_file",
                "remove_worktree", "write_file", "todo_write", "load_skill", "spawn_subagent", "compact");
    }

    @Test
    void providersComeInTheirOrderWhateverTheOrderTheyAreFoundIn() {
        ToolProvider late = new Fake(Set.of(AgentRole.LEAD), List.of(new TodoWriteTool()), 50);
        ToolProvider early = new Fake(Set.of(AgentRole.LEAD, AgentRole.TEAMMATE),
                List.of(WorkspaceToolsFixture.tool("glob")), 5);
        assertThat(names(EngineAssembly.toolsFor(AgentRole.LEAD, List.of(), List.of(late, early))))
                .containsExactly("glob", "todo_write");
        assertThat(names(EngineAssembly.toolsFor(AgentRole.TEAMMATE, List.of(), List.of(late, early))))
                .containsExactly("glob");
        assertThat(EngineAssembly.toolsFor(AgentRole.SUBAGENT, List.of(), List.of(late, early))).isEmpty();
    }

    @Test
    void aProviderExtendsAWorkspaceToolInItsPlace() {
        ToolProvider board = new Fake(Set.of(AgentRole.LEAD), List.of(), 100,
                Map.of("create_worktree", Extended::new));
        List<Tool> lead = EngineAssembly.toolsFor(AgentRole.LEAD, WORKSPACE, List.of(board));
        Tool created = lead.stream().filter(t -> t.name().equals("create_worktree")).findFirst().orElseThrow();
        assertThat(created).isInstanceOf(Extended.class);
        assertThat(created.spec()).isEqualTo(WorkspaceToolsFixture.tool("create_worktree").spec());
        assertThat(names(lead)).containsOnlyOnce("create_worktree");
        // extending a tool the role does not get is a wiring error, found at assembly
        ToolProvider wrong = new Fake(Set.of(AgentRole.TEAMMATE), List.of(), 100,
                Map.of("create_worktree", Extended::new));
        assertThatThrownBy(() -> EngineAssembly.toolsFor(AgentRole.TEAMMATE, WORKSPACE, List.of(wrong)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("[create_worktree]");
    }

    @Test
    void theProvidersToolNamesAreKnownToThePermissionRulesBeforeTheFirstTurn() {
        Tool probe = new SpecifiedTool(ToolSchemas.spec("probe_tool_of_a_provider", "a probe",
                ToolSchemas.object().build()), false) {
            @Override
            public ToolResult execute(ToolCall call, ToolContext ctx) {
                return ToolResult.ok("");
            }
        };
        assertThat(ToolNames.known("probe_tool_of_a_provider")).isFalse();
        EngineAssembly.declare(AgentRole.TEAMMATE, List.of(new Fake(Set.of(AgentRole.LEAD), List.of(probe), 1)));
        assertThat(ToolNames.known("probe_tool_of_a_provider")).isFalse(); // not a provider of that role
        EngineAssembly.declare(AgentRole.LEAD, List.of(new Fake(Set.of(AgentRole.LEAD), List.of(probe), 1)));
        assertThat(ToolNames.known("probe_tool_of_a_provider")).isTrue();
    }

    @Test
    void twoProvidersOfferingOneNameToARoleFailTheAssembly() {
        ToolProvider again = new Fake(Set.of(AgentRole.TEAMMATE), List.of(WorkspaceToolsFixture.tool("glob")), 200);
        List<ToolProvider> all = List.of(new SharedToolProvider(), again);
        assertThatThrownBy(() -> ToolRegistry.of(EngineAssembly.toolsFor(AgentRole.TEAMMATE, WORKSPACE, all)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("duplicate tool name 'glob'");
        // the lead is not served by the second one: no clash there
        assertThat(ToolRegistry.of(EngineAssembly.toolsFor(AgentRole.LEAD, WORKSPACE, all)).names()).contains("glob");
    }
}

package dev.cohort.core.engine;

import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Toolsets;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One agent as its host sees it: identity, where its tools run, its policy and the host callbacks. Identity and
 * cwd come from here, never from the model.
 *
 * @param team          team id
 * @param agent         agent name
 * @param role          lead or teammate
 * @param cwd           host-chosen working directory for workspace tools ({@code null} = team workspace)
 * @param workspaceText how the prompt describes the workspace
 * @param allowlist     tools this agent may call (enforced at execution)
 * @param mode          the team's current permission mode (read at every call)
 * @param rules         the team's permission rules
 * @param commandHooks  the team's command hooks, read at the start of every turn (a host reads its team settings
 *                      there; the workspace's {@code .cohort/settings.json} is read by the engine, see
 *                      {@link AgentEngine.Builder#workspaceHookSettings})
 * @param workspace     executor of workspace tools
 * @param store         where state is saved after every step
 * @param inbox         messages injected before each model call
 * @param teamContext   the team-context prompt section (read per call; cached when unchanged)
 */
public record AgentContext(String team, String agent, AgentRole role, String cwd, String workspaceText,
        Set<String> allowlist, Supplier<PermissionMode> mode, List<PermissionPolicy.Rule> rules,
        Supplier<List<CommandHook>> commandHooks, WorkspaceToolExecutor workspace, StateStore store, InboxSource inbox,
        Supplier<String> teamContext) {

    public AgentContext {
        allowlist = allowlist == null ? Toolsets.forRole(role) : Set.copyOf(allowlist);
        mode = mode == null ? () -> PermissionMode.DEFAULT : mode;
        rules = rules == null ? List.of() : List.copyOf(rules);
        commandHooks = commandHooks == null ? List::of : commandHooks;
        store = store == null ? StateStore.NONE : store;
        inbox = inbox == null ? InboxSource.NONE : inbox;
        teamContext = teamContext == null ? () -> "" : teamContext;
        workspaceText = workspaceText == null ? "the team's git repository" : workspaceText;
    }

    /** An agent with the role's default allowlist, default mode, and no store, inbox or team context. */
    public static AgentContext of(String team, String agent, AgentRole role, WorkspaceToolExecutor workspace) {
        return new AgentContext(team, agent, role, null, null, null, null, null, null, workspace, null, null, null);
    }

    public AgentContext withStore(StateStore s) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace, s,
                inbox, teamContext);
    }

    public AgentContext withMode(PermissionMode m) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, () -> m, rules, commandHooks, workspace,
                store, inbox, teamContext);
    }

    public AgentContext withAllowlist(Set<String> a) {
        return new AgentContext(team, agent, role, cwd, workspaceText, a, mode, rules, commandHooks, workspace, store,
                inbox, teamContext);
    }

    public AgentContext withInbox(InboxSource i) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, i, teamContext);
    }

    public AgentContext withCommandHooks(List<CommandHook> h) {
        List<CommandHook> fixed = List.copyOf(h);
        return withCommandHooks(() -> fixed);
    }

    /** Command hooks read at every turn start. */
    public AgentContext withCommandHooks(Supplier<List<CommandHook>> h) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, h, workspace, store, inbox,
                teamContext);
    }

    public AgentContext withTeamContext(Supplier<String> t) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, t);
    }
}

package dev.cohort.core.engine;

import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.Hook;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.core.mcp.McpServerConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One agent as its host sees it: identity, where its tools run, its policy and the host callbacks. Identity and
 * cwd come from here, never from the model. Build one with {@link #of} and the {@code with…} methods.
 *
 * @param team          team id
 * @param agent         agent name
 * @param role          lead or teammate
 * @param cwd           host-chosen working directory for workspace tools, consulted for <em>every</em> tool call
 *                      ({@code null} or empty = team workspace, {@code wt:<name>} = a worktree): a teammate that
 *                      claims a task mid-turn works in the task's worktree from its next call
 * @param workspaceText how the prompt describes the workspace
 * @param allowlist     tools this agent may call (enforced at execution); {@code null} = the engine's tools that list
 *                      its role ({@code Tool#roles})
 * @param mode          the team's current permission mode (read at every call)
 * @param rules         the team's permission rules
 * @param commandHooks  the team's command hooks, read at the start of every turn (a host reads its team settings
 *                      there; the workspace's {@code .cohort/settings.json} is read by the engine, see
 *                      {@link AgentEngine.Builder#workspaceHookSettings})
 * @param workspace     executor of workspace tools
 * @param store         where state is saved after every step
 * @param inbox         messages injected before each model call
 * @param teamContext   the team-context prompt section (read per call; cached when unchanged)
 * @param hooks         this agent's own Java hooks (e.g. a plan gate refusing mutating tools), run after the engine's
 *                      built-in hooks and before command hooks at equal priority
 * @param teamUsage     the team's usage so far (for the per-team budget), {@code null} result = not tracked
 * @param effects       told of every effect of a successful tool call after the engine applied it (e.g.
 *                      {@link ToolEffect.TaskClaimed}: bind the cwd to the task's worktree)
 * @param budgets       the team's own budgets over the engine's ({@code cohort.engine.budgets.*}), read at every step
 *                      (so a raised budget counts from the next step); a {@code null} result = none; a
 *                      {@link BudgetSource} that caches them is asked to read them again before a turn stops on them
 * @param teamUsageToday the team's usage since 00:00 UTC (for the per-day team budget), read only while one is in
 *                      force; a {@code null} result = not tracked
 * @param permissions   the team's permission rules set through the host (the API), read at the start of every turn
 *                      (a change applies from the next turn); the engine adds those of the workspace settings file
 * @param mcpServers    the team's own MCP servers (the API's), read at the start of every turn; the engine adds those of
 *                      the workspace settings file
 */
public record AgentContext(String team, String agent, AgentRole role, Supplier<String> cwd, String workspaceText,
        Set<String> allowlist, Supplier<PermissionMode> mode, List<PermissionPolicy.Rule> rules,
        Supplier<List<CommandHook>> commandHooks, WorkspaceToolExecutor workspace, StateStore store, InboxSource inbox,
        Supplier<String> teamContext, List<Hook> hooks, Supplier<Usage> teamUsage, Consumer<ToolEffect> effects,
        Supplier<Budgets.Overrides> budgets, Supplier<Usage> teamUsageToday,
        Supplier<PermissionRuleSet> permissions, Supplier<Map<String, McpServerConfig>> mcpServers) {

    public AgentContext {
        cwd = cwd == null ? () -> null : cwd;
        allowlist = allowlist == null ? null : Set.copyOf(allowlist);
        mode = mode == null ? () -> PermissionMode.DEFAULT : mode;
        rules = rules == null ? List.of() : List.copyOf(rules);
        commandHooks = commandHooks == null ? List::of : commandHooks;
        store = store == null ? StateStore.NONE : store;
        inbox = inbox == null ? InboxSource.NONE : inbox;
        teamContext = teamContext == null ? () -> "" : teamContext;
        workspaceText = workspaceText == null ? "the team's git repository" : workspaceText;
        hooks = hooks == null ? List.of() : List.copyOf(hooks);
        teamUsage = teamUsage == null ? () -> null : teamUsage;
        effects = effects == null ? e -> {
        } : effects;
        budgets = budgets == null ? () -> null : budgets;
        teamUsageToday = teamUsageToday == null ? () -> null : teamUsageToday;
        permissions = permissions == null ? () -> PermissionRuleSet.EMPTY : permissions;
        mcpServers = mcpServers == null ? Map::of : mcpServers;
    }

    /** The team's own MCP servers (the API's), read at the start of every turn. */
    public AgentContext withMcpServers(Supplier<Map<String, McpServerConfig>> m) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, m);
    }

    /** An agent without budget overrides (source compatibility). */
    public AgentContext(String team, String agent, AgentRole role, Supplier<String> cwd, String workspaceText,
            Set<String> allowlist, Supplier<PermissionMode> mode, List<PermissionPolicy.Rule> rules,
            Supplier<List<CommandHook>> commandHooks, WorkspaceToolExecutor workspace, StateStore store,
            InboxSource inbox, Supplier<String> teamContext, List<Hook> hooks, Supplier<Usage> teamUsage,
            Consumer<ToolEffect> effects) {
        this(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace, store, inbox,
                teamContext, hooks, teamUsage, effects, null, null, null, null);
    }

    /** The team's own budgets, read at every step ({@code null} result: the engine's). */
    public AgentContext withBudgets(Supplier<Budgets.Overrides> b) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, b, teamUsageToday, permissions, mcpServers);
    }

    /** An agent with the role's default allowlist, default mode, and no store, inbox or team context. */
    public static AgentContext of(String team, String agent, AgentRole role, WorkspaceToolExecutor workspace) {
        return new AgentContext(team, agent, role, null, null, null, null, null, null, workspace, null, null, null, null,
                null, null);
    }

    public AgentContext withStore(StateStore s) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace, s,
                inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withMode(PermissionMode m) {
        return withMode(() -> m);
    }

    /** The team's mode, read at every call. */
    public AgentContext withMode(Supplier<PermissionMode> m) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, m, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withAllowlist(Set<String> a) {
        return new AgentContext(team, agent, role, cwd, workspaceText, a, mode, rules, commandHooks, workspace, store,
                inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withInbox(InboxSource i) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, i, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withCommandHooks(List<CommandHook> h) {
        List<CommandHook> fixed = List.copyOf(h);
        return withCommandHooks(() -> fixed);
    }

    /** Command hooks read at every turn start. */
    public AgentContext withCommandHooks(Supplier<List<CommandHook>> h) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, h, workspace, store, inbox,
                teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withTeamContext(Supplier<String> t) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, t, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    /** A fixed working directory. */
    public AgentContext withCwd(String dir) {
        return withCwd(() -> dir);
    }

    /** The working directory, consulted for every tool call. */
    public AgentContext withCwd(Supplier<String> dir) {
        return new AgentContext(team, agent, role, dir, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withWorkspaceText(String text) {
        return new AgentContext(team, agent, role, cwd, text, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withRules(List<PermissionPolicy.Rule> r) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, r, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    /** This agent's own Java hooks. */
    public AgentContext withHooks(List<? extends Hook> h) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, List.copyOf(h), teamUsage, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    public AgentContext withTeamUsage(Supplier<Usage> u) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, u, effects, budgets, teamUsageToday, permissions, mcpServers);
    }

    /** The team's usage since 00:00 UTC, read at every step while a per-day team budget is in force. */
    public AgentContext withTeamUsageToday(Supplier<Usage> u) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, u, permissions, mcpServers);
    }

    /** The team's permission rules (API), read at the start of every turn. */
    public AgentContext withPermissions(Supplier<PermissionRuleSet> p) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, effects, budgets, teamUsageToday, p, mcpServers);
    }

    public AgentContext withEffects(Consumer<ToolEffect> e) {
        return new AgentContext(team, agent, role, cwd, workspaceText, allowlist, mode, rules, commandHooks, workspace,
                store, inbox, teamContext, hooks, teamUsage, e, budgets, teamUsageToday, permissions, mcpServers);
    }
}

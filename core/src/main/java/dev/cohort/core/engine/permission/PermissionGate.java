package dev.cohort.core.engine.permission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.shell.CommandRule;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.shell.CommandVerdict;
import java.util.Set;

/**
 * The permission decision, a pure function (CONVENTIONS #7):
 * {@code (mode, tool, args, policy, workspace) → ALLOW | ASK | DENY}.
 *
 * <p>Order: (1) the hard denies of the command rule set ({@link CommandRules}, shared with the tool runner; every
 * mode, bypass included) → (1b) the protected config: {@code write_file}/{@code edit_file} of a path in {@code .cohort/}
 * and a non-read-only command mentioning {@code .cohort} ({@link CommandRule#PROTECTED_CONFIG}) ASK in every mode but
 * plan (which denies them), bypass included, whatever the team's rules say → (2) the mode ({@code bypass} allows; {@code plan} denies mutating tools except read-only
 * shell commands) → (3) the team's rules, first match → (4) the asks: the command rule set's (destructive commands,
 * destructive git, permission changes, writes outside the workspace), {@code remove_worktree} discarding work, and
 * file writes outside the workspace (not in {@code accept-edits}). An ASK in {@code deny-asks} mode, or in a turn
 * nobody watches, is a DENY.
 */
public final class PermissionGate {
    /** Tools whose {@code path} argument is written. */
    private static final Set<String> FILE_WRITERS = Set.of("write_file", "edit_file");

    private PermissionGate() {
    }

    /**
     * @param mode       the team's mode
     * @param tool       the tool name
     * @param mutating   the tool's {@link dev.cohort.core.tools.Tool#isMutating()}
     * @param args       the validated arguments
     * @param policy     the policy data
     * @param workspace  where the call runs (the host-chosen cwd; the engine does not know the absolute root)
     * @param unattended the turn has no human (cron): asks become denials
     */
    public static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating, ObjectNode args,
            PermissionPolicy policy, CommandRules.Workspace workspace, boolean unattended) {
        PermissionDecision d = decide(mode, tool, mutating, args, policy, workspace);
        if (d.kind() == PermissionDecision.Kind.ASK && (mode == PermissionMode.DENY_ASKS || unattended)) {
            String why = mode == PermissionMode.DENY_ASKS ? "the team's permission mode is deny-asks"
                    : "nobody can approve it in an unattended (scheduled) turn";
            return PermissionDecision.deny(d.rule(), d.reason() + " needs approval, and " + why);
        }
        return d;
    }

    static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating, ObjectNode args,
            PermissionPolicy policy, CommandRules.Workspace workspace) {
        boolean bash = tool.equals("bash");
        String command = bash ? args.path("command").asText("") : null;
        CommandVerdict verdict = bash ? CommandRules.classify(command, workspace) : null;
        if (bash && verdict.hardDeny()) {
            return PermissionDecision.deny(verdict.rule().id(), verdict.reason()
                    + " (a hard deny: no permission mode or approval lifts it)");
        }
        if (mode != PermissionMode.PLAN) {
            // protected config: a hard ask, before bypass and the team's rules (plan mode denies it below anyway)
            if (bash && verdict.rule() == CommandRule.PROTECTED_CONFIG) {
                return PermissionDecision.ask(verdict.rule().id(), verdict.reason());
            }
            if (FILE_WRITERS.contains(tool) && CommandRules.isProtectedConfig(args.path("path").asText(""))) {
                return PermissionDecision.ask(CommandRule.PROTECTED_CONFIG.id(), "a write to the workspace's "
                        + CommandRules.PROTECTED_DIR + "/ directory (" + args.path("path").asText()
                        + "), which holds its settings and hooks");
            }
        }
        if (mode == PermissionMode.BYPASS) {
            return PermissionDecision.ALLOW;
        }
        if (mode == PermissionMode.PLAN && mutating) {
            if (bash && verdict.readOnly()) {
                return PermissionDecision.ALLOW;
            }
            return PermissionDecision.deny("plan-mode", "the team is in plan mode (read-only): '" + tool + "'"
                    + (bash ? " with a command that may change something" : "") + " is not allowed");
        }
        String subject = bash ? command : args.path("path").asText(null);
        for (PermissionPolicy.Rule r : policy.rules()) {
            if (r.tool().equals(tool) && subject != null && r.pattern().matcher(subject).find()) {
                return switch (r.action()) {
                    case ALLOW -> PermissionDecision.ALLOW;
                    case DENY -> PermissionDecision.deny("rule:" + r.describe(), "denied by the team rule " + r.describe());
                    case ASK -> PermissionDecision.ask("rule:" + r.describe(), "the team rule " + r.describe());
                };
            }
        }
        if (bash && verdict.kind() == CommandRule.Kind.ASK) {
            return PermissionDecision.ask(verdict.rule().id(), verdict.reason());
        }
        if (tool.equals("remove_worktree") && args.path("discard_changes").asBoolean(false)) {
            return PermissionDecision.ask("discard-worktree", "removing worktree '" + args.path("name").asText()
                    + "' and discarding its uncommitted and unmerged work");
        }
        if (FILE_WRITERS.contains(tool) && mode != PermissionMode.ACCEPT_EDITS
                && CommandRules.outsideWorkspace(args.path("path").asText(""), workspace)) {
            return PermissionDecision.ask(CommandRule.WRITE_OUTSIDE_WORKSPACE.id(), "a write outside the workspace ("
                    + args.path("path").asText() + ")");
        }
        return PermissionDecision.ALLOW;
    }
}

package dev.cohort.core.engine.permission;

import dev.cohort.core.shell.CommandRule;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.shell.CommandVerdict;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;

/**
 * The permission decision, a pure function (CONVENTIONS #7):
 * {@code (mode, subject, mutating, policy, workspace) → ALLOW | ASK | DENY}. The tool says what a call puts at stake
 * ({@link Tool#permissionSubject}: a command, a file written, a destructive act, or nothing); the gate never looks at
 * tool names, except to match the team's rules, which name the tool they apply to.
 *
 * <p>Order: (1) the hard denies of the command rule set ({@link CommandRules}, shared with the tool runner; every
 * mode, bypass included) → (1b) the protected config: a file write to a path in {@code .cohort/} and a non-read-only
 * command mentioning {@code .cohort} ({@link CommandRule#PROTECTED_CONFIG}) ASK in every mode but plan (which denies
 * them), bypass included, whatever the team's rules say, and so does an act that keeps running without a person
 * ({@link PermissionSubject.Persistent}, e.g. a cron job the model schedules) → (2) the mode ({@code bypass} allows;
 * {@code plan} denies mutating tools except read-only commands) → (3) the team's rules, deny over ask over allow across
 * all of them ({@link PermissionPolicy#decide}: a deny matching any simple command of a line wins) → (4) the
 * asks: the command rule set's (destructive commands, destructive git, permission changes, writes outside the
 * workspace), destructive acts (e.g. discarding a worktree's work), and file writes outside the workspace (not in
 * {@code accept-edits}). An ASK in {@code deny-asks} mode, or in a turn nobody watches, is a DENY.
 */
public final class PermissionGate {

    private PermissionGate() {
    }

    /**
     * @param mode       the team's mode
     * @param tool       the tool name (for the team's rules and the messages)
     * @param mutating   the tool's {@link Tool#isMutating()}
     * @param subject    what the call puts at stake ({@link Tool#permissionSubject} of the validated arguments)
     * @param policy     the policy data
     * @param workspace  where the call runs (the host-chosen cwd; the engine does not know the absolute root)
     * @param unattended the turn has no human (cron): asks become denials
     */
    public static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating, PermissionSubject subject,
            PermissionPolicy policy, CommandRules.Workspace workspace, boolean unattended) {
        PermissionDecision d = decide(mode, tool, mutating, subject, policy, workspace);
        if (d.kind() == PermissionDecision.Kind.ASK && (mode == PermissionMode.DENY_ASKS || unattended)) {
            String why = mode == PermissionMode.DENY_ASKS ? "the team's permission mode is deny-asks"
                    : "nobody can approve it in an unattended (scheduled) turn";
            return PermissionDecision.deny(d.rule(), d.reason() + " needs approval, and " + why);
        }
        return d;
    }

    static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating, PermissionSubject subject,
            PermissionPolicy policy, CommandRules.Workspace workspace) {
        CommandVerdict verdict = subject instanceof PermissionSubject.Command c
                ? CommandRules.classify(c.command(), workspace) : null;
        boolean command = verdict != null;
        String written = subject instanceof PermissionSubject.FileWrite f ? f.path() : null;
        if (command && verdict.hardDeny()) {
            return PermissionDecision.deny(verdict.rule().id(), verdict.reason()
                    + " (a hard deny: no permission mode or approval lifts it)");
        }
        if (mode != PermissionMode.PLAN) {
            // protected config: a hard ask, before bypass and the team's rules (plan mode denies it below anyway)
            if (command && verdict.rule() == CommandRule.PROTECTED_CONFIG) {
                return PermissionDecision.ask(verdict.rule().id(), verdict.reason());
            }
            if (written != null && CommandRules.isProtectedConfig(written)) {
                return PermissionDecision.ask(CommandRule.PROTECTED_CONFIG.id(), "a write to the workspace's "
                        + CommandRules.PROTECTED_DIR + "/ directory (" + written + "), which holds its settings and hooks");
            }
            if (subject instanceof PermissionSubject.Persistent p) {
                return PermissionDecision.ask(p.rule(), p.reason());
            }
        }
        if (mode == PermissionMode.BYPASS) {
            return PermissionDecision.ALLOW;
        }
        if (mode == PermissionMode.PLAN && mutating) {
            if (command && verdict.readOnly()) {
                return PermissionDecision.ALLOW;
            }
            return PermissionDecision.deny("plan-mode", "the team is in plan mode (read-only): '" + tool + "'"
                    + (command ? " with a command that may change something" : "") + " is not allowed");
        }
        PermissionDecision byRules = policy.decide(tool, subject, workspace);
        if (byRules != null) {
            return byRules;
        }
        if (command && verdict.kind() == CommandRule.Kind.ASK) {
            return PermissionDecision.ask(verdict.rule().id(), verdict.reason());
        }
        if (subject instanceof PermissionSubject.Destructive d) {
            return PermissionDecision.ask(d.rule(), d.reason());
        }
        if (written != null && mode != PermissionMode.ACCEPT_EDITS && CommandRules.outsideWorkspace(written, workspace)) {
            return PermissionDecision.ask(CommandRule.WRITE_OUTSIDE_WORKSPACE.id(), "a write outside the workspace ("
                    + written + ")");
        }
        return PermissionDecision.ALLOW;
    }
}

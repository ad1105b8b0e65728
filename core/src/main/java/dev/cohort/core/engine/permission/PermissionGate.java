package dev.cohort.core.engine.permission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;
import java.util.Set;

/**
 * The permission decision, a pure function (CONVENTIONS #7): {@code (mode, tool, args, policy) → ALLOW | ASK | DENY}.
 *
 * <p>Order: (1) hard denies (every mode, bypass included) → (2) the mode ({@code bypass} allows; {@code plan}
 * denies mutating tools except read-only shell commands) → (3) the team's rules, first match → (4) the built-in
 * asks: destructive shell commands, and file writes outside the workspace (not in {@code accept-edits}). An ASK in
 * {@code deny-asks} mode, or in a turn nobody watches, is a DENY.
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
     * @param unattended the turn has no human (cron): asks become denials
     */
    public static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating, ObjectNode args,
            PermissionPolicy policy, boolean unattended) {
        PermissionDecision d = decide(mode, tool, mutating, args, policy);
        if (d.kind() == PermissionDecision.Kind.ASK && (mode == PermissionMode.DENY_ASKS || unattended)) {
            String why = mode == PermissionMode.DENY_ASKS ? "the team's permission mode is deny-asks"
                    : "nobody can approve it in an unattended (scheduled) turn";
            return PermissionDecision.deny(d.rule(), d.reason() + " needs approval, and " + why);
        }
        return d;
    }

    static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating, ObjectNode args,
            PermissionPolicy policy) {
        boolean bash = tool.equals("bash");
        String command = bash ? args.path("command").asText("") : null;
        if (bash) {
            Optional<PermissionDecision> hard = CommandRules.hardDeny(command, policy);
            if (hard.isPresent()) {
                return hard.get();
            }
        }
        if (mode == PermissionMode.BYPASS) {
            return PermissionDecision.ALLOW;
        }
        if (mode == PermissionMode.PLAN && mutating) {
            if (bash && CommandRules.readOnly(command, policy)) {
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
        if (bash) {
            Optional<String> why = CommandRules.destructive(command, policy);
            if (why.isPresent()) {
                return PermissionDecision.ask("destructive", why.get());
            }
        }
        if (tool.equals("remove_worktree") && args.path("discard_changes").asBoolean(false)) {
            return PermissionDecision.ask("destructive", "removing worktree '" + args.path("name").asText()
                    + "' and discarding its uncommitted and unmerged work");
        }
        if (FILE_WRITERS.contains(tool) && mode != PermissionMode.ACCEPT_EDITS
                && CommandRules.outsideWorkspace(args.path("path").asText(""))) {
            return PermissionDecision.ask("outside-workspace", "a write outside the workspace ("
                    + args.path("path").asText() + ")");
        }
        return PermissionDecision.ALLOW;
    }
}

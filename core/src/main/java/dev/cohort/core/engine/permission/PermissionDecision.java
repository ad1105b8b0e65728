package dev.cohort.core.engine.permission;

/**
 * The gate's answer for one tool call.
 *
 * @param kind   allow, ask or deny
 * @param rule   the rule that decided (a {@link dev.cohort.core.shell.CommandRule} name such as
 *               {@code privilege-escalation} or {@code destructive-command}, {@code plan-mode}, {@code rule:…})
 * @param reason a sentence for the model (deny) or the approver (ask)
 */
public record PermissionDecision(Kind kind, String rule, String reason) {
    public static final PermissionDecision ALLOW = new PermissionDecision(Kind.ALLOW, null, null);

    public static PermissionDecision ask(String rule, String reason) {
        return new PermissionDecision(Kind.ASK, rule, reason);
    }

    public static PermissionDecision deny(String rule, String reason) {
        return new PermissionDecision(Kind.DENY, rule, reason);
    }

    public enum Kind {
        ALLOW, ASK, DENY
    }
}

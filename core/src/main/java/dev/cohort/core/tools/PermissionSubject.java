package dev.cohort.core.tools;

/**
 * What a tool call puts at stake, as the tool itself says ({@link Tool#permissionSubject}); the permission gate
 * decides on this and the permission mode, never on tool names.
 */
public sealed interface PermissionSubject {

    /** Nothing beyond the tool's {@link Tool#isMutating()} flag. */
    PermissionSubject NONE = new None();

    /** Nothing to inspect. */
    record None() implements PermissionSubject {
    }

    /**
     * A shell command: classified by the shared command rule set (hard denies, asks, read-only commands).
     *
     * @param command the command line
     */
    record Command(String command) implements PermissionSubject {
    }

    /**
     * A path the call reads or names (what a team rule for the tool is matched against); no ask of its own.
     *
     * @param path the path as the model gave it
     */
    record Path(String path) implements PermissionSubject {
    }

    /**
     * A file written: asks outside the workspace (not in {@code accept-edits}) and in the protected config directory.
     *
     * @param path the path as the model gave it, relative to the call's working directory
     */
    record FileWrite(String path) implements PermissionSubject {
    }

    /**
     * An act that destroys work: always asks (outside {@code bypass}).
     *
     * @param rule   the rule id reported with the decision (e.g. {@code discard-worktree})
     * @param reason what would be lost, for the person asked
     */
    record Destructive(String rule, String reason) implements PermissionSubject {
    }

    /**
     * An act that goes on after the turn with nobody watching (a cron job the model schedules, which later runs
     * prompts on its own): asks in every mode but plan (which denies it, the call being mutating), bypass included,
     * whatever the team's rules say. So in an unattended turn or in {@code deny-asks} it is a denial: a scheduled
     * turn cannot schedule more work without a person.
     *
     * @param rule   the rule id reported with the decision (e.g. {@code model-cron-job})
     * @param reason what would keep running, for the person asked
     */
    record Persistent(String rule, String reason) implements PermissionSubject {
    }

    /** The text a team's permission rule pattern is matched against: the command or the path; {@code null} else. */
    default String ruleText() {
        return switch (this) {
            case Command c -> c.command();
            case FileWrite f -> f.path();
            case Path p -> p.path();
            default -> null;
        };
    }
}

package dev.cohort.core.shell;

/**
 * Every rule of the one command rule set ({@link CommandRules}), with the verdict it gives. The names are part of the
 * public contract: they appear in tool results ({@code permission denied by rule '…'}, {@code (rule: …)}), approval
 * requests and events, and both the engine's permission gate and the tool runner report them unchanged.
 */
public enum CommandRule {
    // hard denies: never run, in any permission mode, whatever an approver said; the tool runner refuses them too
    EMPTY_COMMAND("empty-command", Kind.DENY, "a blank command line"),
    NUL_BYTE("nul-byte", Kind.DENY, "a NUL byte anywhere in the command"),
    UNPARSEABLE("unparseable", Kind.DENY,
            "not valid shell (unbalanced quotes or parentheses, a redirection without a target) or nested too deep"),
    FORK_BOMB("fork-bomb", Kind.DENY, "a function that pipes into itself in the background (:(){ :|:& };:)"),
    PRIVILEGE_ESCALATION("privilege-escalation", Kind.DENY, "sudo, su, doas, pkexec, runuser, sudoedit"),
    POWER_STATE("power-state", Kind.DENY,
            "shutdown, reboot, halt, poweroff, systemctl poweroff/reboot/halt/kexec/suspend…, init 0 / init 6"),
    FILESYSTEM_FORMAT("filesystem-format", Kind.DENY, "mkfs, mkfs.*, mke2fs, mkswap, wipefs, fdisk, sfdisk, parted…"),
    BLOCK_DEVICE_WRITE("block-device-write", Kind.DENY,
            "dd of=/dev/sda, > /dev/sda, tee/cp/mv onto a device (/dev/null, /dev/stdout, /dev/tty… are fine)"),
    KILL_ALL("kill-all", Kind.DENY, "kill -1 (every process), kill 1 (init), killall5"),
    RECURSIVE_DELETE_OF_PROTECTED_PATH("recursive-delete-of-protected-path", Kind.DENY,
            "rm -r of /, a top-level directory (/usr, /etc, /tmp…), a home (~, $HOME), the workspace root (., *) or "
                    + "anything outside it reached with .., an absolute ancestor of the workspace; rm "
                    + "--no-preserve-root; find -delete / -exec rm starting at such a path; rsync --delete onto one"),
    RECURSIVE_CHANGE_OF_PROTECTED_PATH("recursive-change-of-protected-path", Kind.DENY,
            "chmod / chown / chgrp -R of the same protected paths"),
    REMOTE_SCRIPT_EXECUTION("remote-script-execution", Kind.DENY,
            "a download run by a shell: curl … | sh, bash <(curl …), sh -c \"$(curl …)\", eval \"$(wget …)\""),

    // asks: an approval in default and accept-edits mode, a denial in deny-asks mode or an unattended turn
    DESTRUCTIVE_COMMAND("destructive-command", Kind.ASK,
            "rm, rmdir, shred, unlink, truncate, dd, srm, kill, pkill, killall (also behind xargs, env, find -exec…)"),
    FIND_DELETE("find-delete", Kind.ASK, "find … -delete inside the workspace"),
    DESTRUCTIVE_GIT("destructive-git", Kind.ASK, "git reset --hard, git clean (not -n), git push --force / +refspec / "
            + "--delete, git branch -D, git checkout -- / -f, git restore (worktree), git stash drop / clear"),
    PERMISSION_CHANGE("permission-change", Kind.ASK,
            "chmod / chown / chgrp recursive (of an unprotected path) or world-writable (777, o+w)"),
    PROTECTED_CONFIG("protected-config", Kind.ASK,
            "a command that is not read-only and mentions .cohort (the workspace's settings and hooks): redirect, "
                    + "rm, mv, cp, tee, sed -i, ln… onto it; a hard ask, bypass mode does not skip it"),
    WRITE_OUTSIDE_WORKSPACE("write-outside-workspace", Kind.ASK,
            "a redirection, tee, cp, mv, install, ln, rsync, touch or mkdir whose target is outside the workspace"),

    // allows
    READ_ONLY("read-only", Kind.ALLOW,
            "every command is on the read-only allowlist with only options that cannot run a program, write or change"
                    + " state (ls, cat, grep, git status/log/diff without --output/-c/--ext-diff, sed scripts without"
                    + " e/w, find without -exec of a non-read-only command…): plan mode lets it through"),
    ORDINARY("ordinary", Kind.ALLOW, "everything else: builds, tests, edits inside the workspace");

    /** What a rule decides. */
    public enum Kind {
        ALLOW, ASK, DENY
    }

    private final String id;
    private final Kind kind;
    private final String covers;

    CommandRule(String id, Kind kind, String covers) {
        this.id = id;
        this.kind = kind;
        this.covers = covers;
    }

    /** The rule's name as reported ({@code recursive-delete-of-protected-path}). */
    public String id() {
        return id;
    }

    /** The verdict this rule gives. */
    public Kind kind() {
        return kind;
    }

    /** What the rule covers, one line (for docs and errors). */
    public String covers() {
        return covers;
    }

    /** The rule named {@code id}. */
    public static CommandRule of(String id) {
        for (CommandRule r : values()) {
            if (r.id.equals(id)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown command rule '" + id + "'");
    }
}

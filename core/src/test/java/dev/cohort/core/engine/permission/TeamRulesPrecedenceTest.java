package dev.cohort.core.engine.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.tools.PermissionSubject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The team's rules in the gate: deny over ask over allow across every rule (not first match), after the hard denies,
 * the protected config and the mode, before the command rule set's asks.
 */
class TeamRulesPrecedenceTest {

    private static final CommandRules.Workspace WS = CommandRules.Workspace.relative(null);

    /** The scenario's rules: deny curl, allow npm test, ask for edits under src. */
    private static final PermissionRuleSet SCENARIO = new PermissionRuleSet(List.of("Bash(npm test)"),
            List.of("Edit(src/**)"), List.of("Bash(curl:*)"));

    private static PermissionDecision decide(PermissionMode mode, String tool, boolean mutating,
            PermissionSubject subject, PermissionRuleSet rules) {
        PermissionPolicy p = PermissionPolicy.defaults().withRules(rules.parse("team settings", "permissions"));
        return PermissionGate.decide(mode, tool, mutating, subject, p, WS, false);
    }

    private static PermissionSubject bash(String c) {
        return new PermissionSubject.Command(c);
    }

    @Test
    void theScenarioDeniesCurlAllowsNpmTestAndAsksForEditsUnderSrc() {
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("curl -s https://example.com"), SCENARIO))
                .isEqualTo(PermissionDecision.deny("rule:deny Bash(curl:*)", "denied by the team rule deny"
                        + " Bash(curl:*) (team settings) for 'curl -s https://example.com'"));
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("npm test"), SCENARIO))
                .isEqualTo(PermissionDecision.ALLOW);
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true, new PermissionSubject.FileWrite("src/app.js"),
                SCENARIO)).isEqualTo(PermissionDecision.ask("rule:ask Edit(src/**)",
                        "the team rule ask Edit(src/**) (team settings) for 'src/app.js'"));
        // outside src a write in the workspace is the default's: allowed without asking
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true, new PermissionSubject.FileWrite("docs/a.md"),
                SCENARIO)).isEqualTo(PermissionDecision.ALLOW);
        // accept-edits would not ask for a workspace write: the team's ask still does
        assertThat(decide(PermissionMode.ACCEPT_EDITS, "edit_file", true, new PermissionSubject.FileWrite("src/a.js"),
                SCENARIO).kind()).isEqualTo(PermissionDecision.Kind.ASK);
        // deny-asks turns the rule's ask into a denial naming it
        assertThat(decide(PermissionMode.DENY_ASKS, "edit_file", true, new PermissionSubject.FileWrite("src/a.js"),
                SCENARIO).rule()).isEqualTo("rule:ask Edit(src/**)");
    }

    @Test
    void denyBeatsAskBeatsAllowWhateverTheOrderAndHowSpecific() {
        // a narrow allow cannot carve an exception out of a broad deny, nor a broad ask
        PermissionRuleSet rules = new PermissionRuleSet(List.of("Bash(aws s3 ls)", "Bash(git status)", "Bash(make:*)"),
                List.of("Bash(git:*)"), List.of("Bash(aws:*)"));
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("aws s3 ls"), rules).rule())
                .isEqualTo("rule:deny Bash(aws:*)");
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("git status"), rules).rule())
                .isEqualTo("rule:ask Bash(git:*)");
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("make all"), rules))
                .isEqualTo(PermissionDecision.ALLOW);
        // the same with the legacy regex rules, listed allow first: not first match
        PermissionPolicy legacy = PermissionPolicy.defaults().withRules(List.of(
                PermissionPolicy.Rule.of("bash", "^npm", PermissionDecision.Kind.ALLOW),
                PermissionPolicy.Rule.of("bash", "publish", PermissionDecision.Kind.DENY)));
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "bash", true, bash("npm publish"), legacy, WS, false)
                .rule()).isEqualTo("rule:deny bash(publish)");
    }

    @Test
    void anAllowCoversACompoundLineOnlyWhenItCoversEveryCommandOfIt() {
        PermissionRuleSet rules = new PermissionRuleSet(List.of("Bash(rm -rf build)", "Bash(npm test:*)"), null, null);
        // allowed lines run without the ask the command rule set would make
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("rm -rf build"), rules))
                .isEqualTo(PermissionDecision.ALLOW);
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("rm -rf build && npm test -- --ci"), rules))
                .isEqualTo(PermissionDecision.ALLOW);
        // a prefix allow does not stretch over a second command: the rule set's ask stands
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("npm test; rm -rf dist"), rules).rule())
                .isEqualTo("destructive-command");
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("npm test $(rm -rf dist)"), rules).rule())
                .isEqualTo("destructive-command");
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("rm -rf dist"), rules).rule())
                .isEqualTo("destructive-command");
    }

    @Test
    void hardDeniesProtectedConfigAndTheModeComeBeforeTheTeamsRules() {
        PermissionRuleSet allowAll = new PermissionRuleSet(List.of("Bash", "Edit", "Read"), null, null);
        assertThat(decide(PermissionMode.DEFAULT, "bash", true, bash("sudo make install"), allowAll).rule())
                .isEqualTo("privilege-escalation");
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true,
                new PermissionSubject.FileWrite(".cohort/settings.json"), allowAll).rule()).isEqualTo("protected-config");
        assertThat(decide(PermissionMode.PLAN, "write_file", true, new PermissionSubject.FileWrite("a.txt"), allowAll)
                .rule()).isEqualTo("plan-mode");
        // bypass allows before the rules: its only limits are the hard denies and the protected config
        PermissionRuleSet denyCurl = new PermissionRuleSet(null, null, List.of("Bash(curl:*)"));
        assertThat(decide(PermissionMode.BYPASS, "bash", true, bash("curl x"), denyCurl))
                .isEqualTo(PermissionDecision.ALLOW);
        // a cron-fired turn: a rule's ask is a denial, a rule's allow still allows
        PermissionPolicy p = PermissionPolicy.defaults().withRules(SCENARIO.parse(null, "permissions"));
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "edit_file", true,
                new PermissionSubject.FileWrite("src/a.js"), p, WS, true).kind()).isEqualTo(PermissionDecision.Kind.DENY);
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "bash", true, bash("npm test"), p, WS, true))
                .isEqualTo(PermissionDecision.ALLOW);
    }

    @Test
    void pathsAreMatchedFromTheWorkspaceOrWorktreeRootAndUnknownRootsNeverAllow() {
        PermissionRuleSet rules = new PermissionRuleSet(List.of("Edit(/c/**)"), null, List.of("Read(./secrets/**)"));
        PermissionPolicy p = PermissionPolicy.defaults().withRules(rules.parse(null, "permissions"));
        // a call in a subdirectory or a worktree names paths from there
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "read_file", false,
                new PermissionSubject.Path("key.pem"), p, CommandRules.Workspace.relative("secrets"), false).kind())
                .isEqualTo(PermissionDecision.Kind.DENY);
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "read_file", false,
                new PermissionSubject.Path("secrets/key.pem"), p, CommandRules.Workspace.relative("wt:feature"), false)
                .kind()).isEqualTo(PermissionDecision.Kind.DENY);
        // '/c/**' is the workspace's c/, so an absolute /c/hello.txt (root unknown) is not allowed by it: it still asks
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "write_file", true,
                new PermissionSubject.FileWrite("/c/hello.txt"), p, WS, false).rule())
                .isEqualTo("write-outside-workspace");
        assertThat(PermissionGate.decide(PermissionMode.DEFAULT, "write_file", true,
                new PermissionSubject.FileWrite("c/hello.txt"), p, WS, false)).isEqualTo(PermissionDecision.ALLOW);
    }
}

package dev.cohort.core.engine.permission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.shell.CommandRule;
import dev.cohort.core.shell.CommandRules;
import dev.cohort.core.testing.CommandTable;
import dev.cohort.core.tools.cron.ScheduleCronTool;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The permission decision as a table (pure function, no engine). Shell commands are decided by the shared command
 * rule set: the whole table of {@code command-rules.tsv} goes through the gate in every mode.
 */
class PermissionGateTest {
    private static final PermissionPolicy P = PermissionPolicy.defaults();
    private static final CommandRules.Workspace WS = CommandRules.Workspace.relative(null);

    /** The real tools: the gate decides on what each says is at stake, never on its name. */
    private static final Map<String, Tool> TOOLS = WorkspaceToolsFixture.tools("bash", "write_file", "edit_file", "read_file",
            "remove_worktree", "create_worktree").stream()
            .collect(Collectors.toMap(Tool::name, t -> t));

    private static PermissionDecision gateDecide(PermissionMode mode, String tool, boolean mutating, ObjectNode args,
            PermissionPolicy policy, CommandRules.Workspace ws, boolean unattended) {
        Tool t = TOOLS.get(tool);
        return PermissionGate.decide(mode, tool, mutating, t.permissionSubject(args), policy, ws, unattended);
    }

    private static ObjectNode bash(String cmd) {
        return Json.MAPPER.createObjectNode().put("command", cmd);
    }

    private static ObjectNode path(String p) {
        return Json.MAPPER.createObjectNode().put("path", p).put("content", "");
    }

    private static String decide(PermissionMode mode, String tool, boolean mutating, ObjectNode args) {
        PermissionDecision d = gateDecide(mode, tool, mutating, args, P, WS, false);
        return d.kind() + (d.rule() == null ? "" : " " + d.rule());
    }

    static List<CommandTable.Row> rows() {
        return CommandTable.rows();
    }

    private static String gate(PermissionMode mode, CommandTable.Row row, boolean unattended) {
        PermissionDecision d = gateDecide(mode, "bash", true, bash(row.command()), P,
                CommandRules.Workspace.of(CommandTable.ROOT, row.absoluteCwd()), unattended);
        return d.kind() + (d.rule() == null ? "" : " " + d.rule());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyRowOfTheCommandTableGetsTheSameVerdictThroughTheGateInEveryMode(CommandTable.Row row) {
        CommandRule r = row.rule();
        String hard = "DENY " + r.id();
        String expectedDefault = switch (r.kind()) {
            case DENY -> hard;
            case ASK -> "ASK " + r.id();
            case ALLOW -> "ALLOW";
        };
        assertThat(gate(PermissionMode.DEFAULT, row, false)).as(row.toString()).isEqualTo(expectedDefault);
        assertThat(gate(PermissionMode.ACCEPT_EDITS, row, false)).as(row.toString()).isEqualTo(expectedDefault);
        // a hard deny is never bypassable, nor is the protected-config ask; everything else runs in bypass mode
        assertThat(gate(PermissionMode.BYPASS, row, false)).as(row.toString())
                .isEqualTo(r.kind() == CommandRule.Kind.DENY ? hard
                        : r == CommandRule.PROTECTED_CONFIG ? "ASK protected-config" : "ALLOW");
        // plan mode runs read-only commands only
        assertThat(gate(PermissionMode.PLAN, row, false)).as(row.toString())
                .isEqualTo(r.kind() == CommandRule.Kind.DENY ? hard : r == CommandRule.READ_ONLY ? "ALLOW" : "DENY plan-mode");
        // nobody to approve: an ask is a denial under the same rule
        String noApprover = r.kind() == CommandRule.Kind.ASK ? "DENY " + r.id() : expectedDefault;
        assertThat(gate(PermissionMode.DENY_ASKS, row, false)).as(row.toString()).isEqualTo(noApprover);
        assertThat(gate(PermissionMode.DEFAULT, row, true)).as(row.toString()).isEqualTo(noApprover);
    }

    @Test
    void aHardDenyReachesTheModelWithTheRuleSetsReasonAndSaysNothingLiftsIt() {
        PermissionDecision d = gateDecide(PermissionMode.BYPASS, "bash", true, bash("sudo ls"), P, WS, false);
        assertThat(d).isEqualTo(PermissionDecision.deny("privilege-escalation", "'sudo' is never allowed: tools run"
                + " without privilege escalation (a hard deny: no permission mode or approval lifts it)"));
    }

    @Test
    void writesOutsideTheWorkspaceAskExceptInAcceptEditsAndInsideWritesPass() {
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true, path("src/a.txt"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true, path("/etc/hosts"))).isEqualTo("ASK write-outside-workspace");
        assertThat(decide(PermissionMode.DEFAULT, "edit_file", true, path("a/../../x"))).isEqualTo("ASK write-outside-workspace");
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true, path("c:/hello.txt"))).isEqualTo("ASK write-outside-workspace");
        assertThat(decide(PermissionMode.ACCEPT_EDITS, "write_file", true, path("/etc/hosts"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.ACCEPT_EDITS, "bash", true, bash("rm a"))).isEqualTo("ASK destructive-command");
        // the file tools' paths start at the host-chosen cwd
        PermissionDecision fromSub = gateDecide(PermissionMode.DEFAULT, "write_file", true, path("../a.txt"),
                P, CommandRules.Workspace.relative("src"), false);
        assertThat(fromSub.kind()).isEqualTo(PermissionDecision.Kind.ALLOW);
    }

    @Test
    void removingAWorktreeWithItsWorkAsksAndKeepingTheWorkDoesNot() {
        var keep = Json.MAPPER.createObjectNode().put("name", "auth");
        var discard = Json.MAPPER.createObjectNode().put("name", "auth").put("discard_changes", true);
        assertThat(decide(PermissionMode.DEFAULT, "remove_worktree", true, keep)).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.DEFAULT, "remove_worktree", true, discard)).isEqualTo("ASK discard-worktree");
        assertThat(decide(PermissionMode.BYPASS, "remove_worktree", true, discard)).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.PLAN, "create_worktree", true, keep)).isEqualTo("DENY plan-mode");
    }

    @Test
    void planModeAllowsReadOnlyToolsAndReadOnlyCommandsOnly() {
        assertThat(decide(PermissionMode.PLAN, "read_file", false, path("a"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.PLAN, "bash", true, bash("git log --oneline | head -5"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.PLAN, "bash", true, bash("grep -rn foo . > out.txt"))).isEqualTo("DENY plan-mode");
        assertThat(decide(PermissionMode.PLAN, "bash", true, bash("sed -i s/a/b/ f"))).isEqualTo("DENY plan-mode");
        assertThat(decide(PermissionMode.PLAN, "bash", true, bash("git commit -m x"))).isEqualTo("DENY plan-mode");
        assertThat(decide(PermissionMode.PLAN, "write_file", true, path("a"))).isEqualTo("DENY plan-mode");
        assertThat(decide(PermissionMode.PLAN, "bash", true, bash("sudo ls"))).isEqualTo("DENY privilege-escalation");
    }

    @Test
    void bypassKeepsOnlyHardDeniesAndDenyAsksTurnsEveryAskIntoADenial() {
        assertThat(decide(PermissionMode.BYPASS, "bash", true, bash("rm -rf build"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.BYPASS, "bash", true, bash("sudo rm -rf build"))).isEqualTo("DENY privilege-escalation");
        assertThat(decide(PermissionMode.BYPASS, "bash", true, bash("rm -rf ."))).isEqualTo("DENY recursive-delete-of-protected-path");
        PermissionDecision d = gateDecide(PermissionMode.DENY_ASKS, "bash", true, bash("rm a"), P, WS, false);
        assertThat(d).isEqualTo(PermissionDecision.deny("destructive-command",
                "destructive command 'rm' needs approval, and the team's permission mode is deny-asks"));
    }

    @Test
    void fileWritesIntoTheCohortDirectoryAskInEveryModeBypassIncludedAndAreDeniedWithoutAnApprover() {
        for (String tool : List.of("write_file", "edit_file")) {
            for (String p : List.of(".cohort/settings.json", "./.cohort/settings.json", "src/../.cohort/hooks.sh",
                    "/work/ws/.cohort/settings.json", "sub/.cohort/x")) {
                for (PermissionMode m : List.of(PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS)) {
                    assertThat(decide(m, tool, true, path(p))).as(m + " " + tool + " " + p).isEqualTo("ASK protected-config");
                }
                assertThat(decide(PermissionMode.PLAN, tool, true, path(p))).isEqualTo("DENY plan-mode");
                assertThat(decide(PermissionMode.DENY_ASKS, tool, true, path(p))).isEqualTo("DENY protected-config");
                PermissionDecision cron = gateDecide(PermissionMode.BYPASS, tool, true, path(p), P, WS, true);
                assertThat(cron.kind() + " " + cron.rule()).isEqualTo("DENY protected-config");
            }
        }
        // reading it is fine, and a name that merely resembles it is no config
        assertThat(decide(PermissionMode.DEFAULT, "read_file", false, path(".cohort/settings.json"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.BYPASS, "write_file", true, path("docs/cohort/settings.json"))).isEqualTo("ALLOW");
        assertThat(decide(PermissionMode.DEFAULT, "write_file", true, path(".cohortrc"))).isEqualTo("ALLOW");
    }

    @Test
    void aTeamAllowRuleCannotLiftTheProtectedConfigAsk() {
        PermissionPolicy p = P.withRules(List.of(
                PermissionPolicy.Rule.of("write_file", ".*", PermissionDecision.Kind.ALLOW),
                PermissionPolicy.Rule.of("bash", ".*", PermissionDecision.Kind.ALLOW)));
        assertThat(gateDecide(PermissionMode.DEFAULT, "write_file", true, path(".cohort/settings.json"), p,
                WS, false).rule()).isEqualTo("protected-config");
        assertThat(gateDecide(PermissionMode.BYPASS, "bash", true, bash("rm .cohort/settings.json"), p,
                WS, false).rule()).isEqualTo("protected-config");
        assertThat(gateDecide(PermissionMode.BYPASS, "bash", true, bash("cat .cohort/settings.json"), p,
                WS, false).kind()).isEqualTo(PermissionDecision.Kind.ALLOW);
    }

    @Test
    void teamRulesApplyAfterHardDenies() {
        PermissionPolicy p = P.withRules(List.of(
                PermissionPolicy.Rule.of("bash", "^rm -rf build$", PermissionDecision.Kind.ALLOW),
                PermissionPolicy.Rule.of("bash", "^npm publish", PermissionDecision.Kind.DENY),
                PermissionPolicy.Rule.of("bash", "^rm -rf \\.$", PermissionDecision.Kind.ALLOW)));
        assertThat(gateDecide(PermissionMode.DEFAULT, "bash", true, bash("rm -rf build"), p, WS, false).kind())
                .isEqualTo(PermissionDecision.Kind.ALLOW);
        assertThat(gateDecide(PermissionMode.DEFAULT, "bash", true, bash("npm publish"), p, WS, false).rule())
                .isEqualTo("rule:deny bash(^npm publish)");
        assertThat(gateDecide(PermissionMode.DEFAULT, "bash", true, bash("sudo x"), p, WS, false).rule())
                .isEqualTo("privilege-escalation");
        // a team rule cannot allow a hard deny either
        assertThat(gateDecide(PermissionMode.DEFAULT, "bash", true, bash("rm -rf ."), p, WS, false).rule())
                .isEqualTo("recursive-delete-of-protected-path");
    }

    @Test
    void aCronJobTheModelSchedulesAsksInEveryModeBypassIncludedAndIsDeniedWhereNobodyCanApprove() {
        ScheduleCronTool tool = new ScheduleCronTool(SCHEDULER);
        ObjectNode args = Json.MAPPER.createObjectNode().put("cron", "*/5 * * * *").put("prompt", "check the build");
        String reason = "a new recurring cron job ('*/5 * * * *' → check the build) that would run prompts later with"
                + " nobody watching (a person approves each job the model schedules; cohort.lead.model-cron-jobs=allow"
                + " lifts this)";
        for (PermissionMode m : List.of(PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS)) {
            assertThat(cron(tool, m, args, P, false)).as(m.wire()).isEqualTo(PermissionDecision.ask("model-cron-job", reason));
        }
        assertThat(cron(tool, PermissionMode.PLAN, args, P, false).rule()).isEqualTo("plan-mode");
        assertThat(cron(tool, PermissionMode.DENY_ASKS, args, P, false)).isEqualTo(PermissionDecision.deny("model-cron-job",
                reason + " needs approval, and the team's permission mode is deny-asks"));
        // a cron-fired turn cannot schedule more jobs: nobody is there to approve, whatever the mode
        for (PermissionMode m : List.of(PermissionMode.DEFAULT, PermissionMode.BYPASS)) {
            assertThat(cron(tool, m, args, P, true)).as(m.wire()).isEqualTo(PermissionDecision.deny("model-cron-job",
                    reason + " needs approval, and nobody can approve it in an unattended (scheduled) turn"));
        }
        // a team rule does not lift the ask: the allowance is the operator's configuration
        PermissionPolicy allowAll = P.withRules(List.of(PermissionPolicy.Rule.of("schedule_cron", ".*",
                PermissionDecision.Kind.ALLOW)));
        assertThat(cron(tool, PermissionMode.DEFAULT, args, allowAll, false).kind()).isEqualTo(PermissionDecision.Kind.ASK);
    }

    @Test
    void anOperatorsAllowanceLetsTheModelScheduleJobsWithoutAskingButPlanModeStillDenies() {
        ScheduleCronTool tool = new ScheduleCronTool(SCHEDULER, ScheduleCronTool.Approval.ALLOW);
        ObjectNode args = Json.MAPPER.createObjectNode().put("cron", "@daily").put("prompt", "report")
                .put("recurring", false);

        assertThat(cron(tool, PermissionMode.DEFAULT, args, P, false)).isEqualTo(PermissionDecision.ALLOW);
        assertThat(cron(tool, PermissionMode.DEFAULT, args, P, true)).isEqualTo(PermissionDecision.ALLOW);
        assertThat(cron(tool, PermissionMode.PLAN, args, P, false).rule()).isEqualTo("plan-mode");
        // the default asks, and says what kind of job and which prompt, cut for the person asked
        String longPrompt = "x".repeat(200);
        assertThat(cron(new ScheduleCronTool(SCHEDULER), PermissionMode.DEFAULT, args.put("prompt", longPrompt), P, false)
                .reason()).startsWith("a new one-shot cron job ('@daily' → " + "x".repeat(80) + "…) that would run");
    }

    /** A client the gate never calls: the decision is made on the arguments alone. */
    private static final SchedulerClient SCHEDULER = new SchedulerClient(URI.create("http://127.0.0.1:9"),
            Optional.empty(), Duration.ofSeconds(1));

    private static PermissionDecision cron(ScheduleCronTool tool, PermissionMode mode, ObjectNode args,
            PermissionPolicy policy, boolean unattended) {
        return PermissionGate.decide(mode, tool.name(), tool.isMutating(), tool.permissionSubject(args), policy, WS,
                unattended);
    }
}

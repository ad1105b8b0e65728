package dev.cohort.core.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.testing.CommandTable;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The one command rule set against the shared decision table, plus the workspace facts it judges paths by. */
class CommandRulesTest {

    static List<CommandTable.Row> rows() {
        return CommandTable.rows();
    }

    private static CommandRules.Workspace known(CommandTable.Row row) {
        return CommandRules.Workspace.of(CommandTable.ROOT, row.absoluteCwd());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyRowOfTheTableGetsItsVerdictAndRule(CommandTable.Row row) {
        CommandVerdict v = CommandRules.classify(row.command(), known(row));
        assertThat(v.rule()).as(row.toString() + " — reason: " + v.reason()).isEqualTo(row.rule());
        assertThat(v.reason()).isNotBlank();
    }

    @Test
    void theTableHasAtLeast150RowsAndCoversEveryRuleAndEveryVerdict() {
        List<CommandTable.Row> rows = rows();
        assertThat(rows).hasSizeGreaterThanOrEqualTo(150);
        Set<CommandRule> covered = rows.stream().map(CommandTable.Row::rule).collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(EnumSet.allOf(CommandRule.class));
        assertThat(rows.stream().map(r -> r.rule().kind()).distinct()).containsExactlyInAnyOrder(
                CommandRule.Kind.ALLOW, CommandRule.Kind.ASK, CommandRule.Kind.DENY);
    }

    @Test
    void withAnUnknownRootEveryRowAgreesExceptThoseNamingTheWorkspaceByItsAbsolutePath() {
        // the engine does not know where the tool runner keeps the workspace: only absolute paths can differ
        for (CommandTable.Row row : rows()) {
            CommandVerdict v = CommandRules.classify(row.command(), CommandRules.Workspace.relative(row.cwd()));
            if (!row.command().contains("/work")) {
                assertThat(v.rule()).as(row.toString()).isEqualTo(row.rule());
            }
        }
        CommandRules.Workspace unknown = CommandRules.Workspace.relative(null);
        assertThat(CommandRules.classify("rm -rf /work/ws", unknown).rule()).isEqualTo(CommandRule.DESTRUCTIVE_COMMAND);
        assertThat(CommandRules.classify("echo x > /work/ws/notes.txt", unknown).rule())
                .isEqualTo(CommandRule.WRITE_OUTSIDE_WORKSPACE);
    }

    @Test
    void changingTheCohortDirectoryAsksUnderProtectedConfigAndReadingItDoesNot() {
        CommandRules.Workspace ws = CommandRules.Workspace.relative(null);
        for (String c : List.of("echo '{}' > .cohort/settings.json", "rm .cohort/settings.json", "rm -rf .cohort",
                "mv .cohort x", "tee .cohort/settings.json < new.json", "sed -i d .cohort/settings.json",
                "ln -sf /dev/null .cohort/settings.json", "cd .cohort; rm settings.json",
                "echo > .co\\hort/settings.json", "sh -c 'cp a .cohort/settings.json'")) {
            assertThat(CommandRules.classify(c, ws).rule()).as(c).isEqualTo(CommandRule.PROTECTED_CONFIG);
        }
        for (String c : List.of("cat .cohort/settings.json", "ls .cohort", "grep -r hooks .cohort",
                "echo hi > notes.txt", "rm -f cohort.txt")) {
            assertThat(CommandRules.classify(c, ws).rule()).as(c).isNotEqualTo(CommandRule.PROTECTED_CONFIG);
        }
        // a hard deny still wins
        assertThat(CommandRules.classify("sudo rm .cohort/settings.json", ws).rule())
                .isEqualTo(CommandRule.PRIVILEGE_ESCALATION);
    }

    @Test
    void aWorktreeCwdIsRelativeToTheWorktreeWhichIsTheRootThere() {
        assertThat(CommandRules.classify("rm -rf .", CommandRules.Workspace.relative("wt:poem")).rule())
                .isEqualTo(CommandRule.RECURSIVE_DELETE_OF_PROTECTED_PATH);
        assertThat(CommandRules.classify("rm -rf .", CommandRules.Workspace.relative("wt:poem/src")).rule())
                .isEqualTo(CommandRule.DESTRUCTIVE_COMMAND);
        assertThat(CommandRules.classify("rm -rf ..", CommandRules.Workspace.relative("wt:poem/src")).rule())
                .isEqualTo(CommandRule.RECURSIVE_DELETE_OF_PROTECTED_PATH);
    }

    @Test
    void bashCStringsNestedTooDeepAreRefusedAsUnparseable() {
        String cmd = "ls";
        for (int i = 0; i <= CommandRules.MAX_NESTING; i++) {
            cmd = "bash -c " + ShellQuote.single(cmd);
        }
        CommandVerdict v = CommandRules.classify(cmd, CommandRules.Workspace.relative(null));
        assertThat(v.rule()).isEqualTo(CommandRule.UNPARSEABLE);
        assertThat(v.reason()).contains("more than " + CommandRules.MAX_NESTING + " deep");
    }

    @Test
    void theFirstAskIsTheVerdictUnlessALaterCommandIsHardDenied() {
        CommandRules.Workspace ws = CommandRules.Workspace.relative(null);
        assertThat(CommandRules.classify("git reset --hard && rm x", ws))
                .isEqualTo(new CommandVerdict(CommandRule.DESTRUCTIVE_GIT, "destructive git command 'git reset'"));
        assertThat(CommandRules.classify("rm x; sudo id", ws).rule()).isEqualTo(CommandRule.PRIVILEGE_ESCALATION);
    }

    @Test
    void filePathsOutsideTheWorkspaceAreRecognisedWithAndWithoutAKnownRoot() {
        CommandRules.Workspace unknown = CommandRules.Workspace.relative("src");
        CommandRules.Workspace known = CommandRules.Workspace.of(Path.of("/work/ws"), Path.of("/work/ws/src"));
        assertThat(CommandRules.outsideWorkspace("a.txt", unknown)).isFalse();
        assertThat(CommandRules.outsideWorkspace("../a.txt", unknown)).isFalse();
        assertThat(CommandRules.outsideWorkspace("../../a.txt", unknown)).isTrue();
        assertThat(CommandRules.outsideWorkspace("~/.bashrc", unknown)).isTrue();
        assertThat(CommandRules.outsideWorkspace("c:/hello.txt", unknown)).isTrue();
        assertThat(CommandRules.outsideWorkspace("/work/ws/a.txt", unknown)).isTrue();
        assertThat(CommandRules.outsideWorkspace("/work/ws/a.txt", known)).isFalse();
        assertThat(CommandRules.outsideWorkspace("/work/other/a.txt", known)).isTrue();
    }

    @Test
    void workspaceFactsThatMakeNoSenseAreRefusedWithAClearError() {
        assertThatThrownBy(() -> CommandRules.Workspace.of(Path.of("/work/ws"), Path.of("/etc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the cwd /etc is not inside the workspace root /work/ws");
        assertThatThrownBy(() -> new CommandRules.Workspace(Path.of("ws"), Path.of("")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the workspace root must be absolute: ws");
        assertThatThrownBy(() -> CommandRules.Workspace.relative("../x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the cwd must be relative to the workspace root and inside it: ../x");
    }

    @Test
    void wrappersAreSkippedToFindWhatRuns() {
        assertThat(CommandRules.invocation(List.of("FOO=1", "env", "-i", "X=2", "nohup", "timeout", "-s", "KILL", "5",
                "/usr/bin/RM", "-rf", "x"))).contains(new CommandRules.Invocation("rm", List.of("-rf", "x")));
        assertThat(CommandRules.invocation(List.of("X=1"))).isEmpty();
        assertThat(CommandRules.invocation(List.of("command", "-v", "rm")))
                .contains(new CommandRules.Invocation("command", List.of("-v", "rm")));
    }

    /** Single-quotes a string for the shell. */
    private static final class ShellQuote {
        static String single(String s) {
            return "'" + s.replace("'", "'\\''") + "'";
        }
    }
}

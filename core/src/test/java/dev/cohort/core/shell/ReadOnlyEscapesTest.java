package dev.cohort.core.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.permission.PermissionDecision;
import dev.cohort.core.engine.permission.PermissionGate;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionPolicy;
import dev.cohort.core.testing.CommandTable;
import dev.cohort.core.tools.PermissionSubject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Read-only means it: the two read-only sections of the shared decision table ({@code command-rules.tsv}) — the
 * reads the allowlist keeps, and the escapes that looked like reads (a program run, a file written, state changed,
 * or what runs hidden) — against the rule set, through the permission gate in every mode, and under the tool
 * runner's rule (it refuses exactly the hard denies of the same rule set, whatever the engine said).
 */
class ReadOnlyEscapesTest {

    private static final String TABLE = "/dev/cohort/core/shell/command-rules.tsv";
    private static final String READS = "# --- read-only allowlist: reads that stay read-only (plan mode runs them)";
    private static final String ESCAPES = "# --- read-only escapes: commands that looked like reads; none is read-only"
            + " (plan mode denies every one)";

    static List<CommandTable.Row> reads() {
        return section(READS);
    }

    static List<CommandTable.Row> escapes() {
        return section(ESCAPES);
    }

    static List<CommandTable.Row> hardDeniesAmongTheEscapes() {
        return escapes().stream().filter(r -> r.rule().kind() == CommandRule.Kind.DENY).toList();
    }

    /** The rows of the table under {@code header}, up to the next section header. */
    private static List<CommandTable.Row> section(String header) {
        String[] lines;
        try (InputStream in = ReadOnlyEscapesTest.class.getResourceAsStream(TABLE)) {
            assertThat(in).as(TABLE + " on the classpath").isNotNull();
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = List.of(lines).indexOf(header) + 1; // 1-based line number of the header
        assertThat(start).as("the table has the section '" + header + "'").isPositive();
        int end = lines.length;
        for (int i = start; i < lines.length; i++) {
            if (lines[i].startsWith("# ---")) {
                end = i;
                break;
            }
        }
        int first = start;
        int last = end;
        return CommandTable.rows().stream().filter(r -> r.line() > first && r.line() <= last).toList();
    }

    /** What the rule set says, where the tool runner knows the workspace's real location. */
    private static CommandVerdict runner(CommandTable.Row row) {
        return CommandRules.classify(row.command(), CommandRules.Workspace.of(CommandTable.ROOT, row.absoluteCwd()));
    }

    /** The gate's decision on a bash call, as "KIND rule". */
    private static String gate(PermissionMode mode, CommandTable.Row row, boolean unattended) {
        PermissionDecision d = PermissionGate.decide(mode, "bash", true, new PermissionSubject.Command(row.command()),
                PermissionPolicy.defaults(), CommandRules.Workspace.relative(row.cwd()), unattended);
        return d.kind() + (d.rule() == null ? "" : " " + d.rule());
    }

    @Test
    void theTableHoldsTheEscapesReportedAndTheOnesFoundSinceAndTheReadsThatMustStay() {
        List<String> escapes = escapes().stream().map(CommandTable.Row::command).toList();
        assertThat(escapes).hasSizeGreaterThanOrEqualTo(100).contains(
                // reported: each ran in a plan-mode team, classified as a read
                "sed -n '1e touch pwned' README.md", "sed -n 'w out.txt' README.md", "git log --output=out.txt -1",
                "sed -n '1e rm -rf /' README.md", "git grep -Otouch TODO",
                "git -c diff.external=./differ diff --ext-diff",
                // found since
                "awk 'BEGIN{system(\"rm -rf /\")}'", "find . -fprint out.txt",
                "find . -name '*.md' -exec sed -n 'w out.txt' {} \\;", "echo touch pwned | xargs env",
                "xargs -i rm -rf /", "less '+!touch pwned' README.md", "man -P 'rm -rf /' ls",
                "tar -xf a.tar --to-command='rm -rf /'", "vim -c '!rm -rf /' -c q README.md", "env -S 'rm -rf /'",
                "timeout 5 sed -n 'w out.txt' README.md", "nice -n 5 git log --output=out.txt",
                "echo ${x:-$(rm -rf /)}", "cat <<EOF\n$(rm -rf /)\nEOF", "y='a[$(touch pwned)]'; ((x=y))");
        assertThat(reads()).hasSizeGreaterThanOrEqualTo(60).extracting(CommandTable.Row::command).contains(
                "ls -la src", "cat a.txt b.txt", "grep -rn foo .", "rg foo", "git status", "git log --oneline -5",
                "git diff HEAD~1", "git show HEAD:README.md", "sed -n '1,20p' README.md", "find . -name '*.java'",
                "head -n 5 README.md", "jq . package.json", "sort README.md", "diff a.txt b.txt");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("escapes")
    void noEscapeIsReadOnlyAndEachGetsTheRuleOfTheTableWithOrWithoutTheWorkspacesLocation(CommandTable.Row row) {
        CommandVerdict known = runner(row);
        CommandVerdict unknown = CommandRules.classify(row.command(), CommandRules.Workspace.relative(row.cwd()));
        assertThat(known.rule()).as(row + " — reason: " + known.reason()).isNotEqualTo(CommandRule.READ_ONLY)
                .isEqualTo(row.rule());
        assertThat(unknown.rule()).as(row + " (engine) — reason: " + unknown.reason()).isEqualTo(row.rule());
        assertThat(known.readOnly()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("escapes")
    void planModeDeniesEveryEscapeAndEveryOtherModeDecidesByItsRule(CommandTable.Row row) {
        CommandRule r = row.rule();
        boolean hard = r.kind() == CommandRule.Kind.DENY;
        for (PermissionMode mode : PermissionMode.values()) {
            String expected = switch (mode) {
                case PLAN -> "DENY " + (hard ? r.id() : "plan-mode");
                case DEFAULT, ACCEPT_EDITS -> switch (r.kind()) {
                    case DENY -> "DENY " + r.id();
                    case ASK -> "ASK " + r.id();
                    case ALLOW -> "ALLOW";
                };
                // bypass keeps the hard denies and the protected-config ask only
                case BYPASS -> hard ? "DENY " + r.id() : r == CommandRule.PROTECTED_CONFIG ? "ASK " + r.id() : "ALLOW";
                case DENY_ASKS -> r.kind() == CommandRule.Kind.ALLOW ? "ALLOW" : "DENY " + r.id();
            };
            assertThat(gate(mode, row, false)).as(mode.wire() + ": " + row).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hardDeniesAmongTheEscapes")
    void aHardDenyHiddenInAnEscapeIsRefusedByTheRunnerAndInEveryModeAttendedOrNot(CommandTable.Row row) {
        assertThat(runner(row).hardDeny()).as(row.toString()).isTrue();
        for (PermissionMode mode : PermissionMode.values()) {
            for (boolean unattended : List.of(false, true)) {
                assertThat(gate(mode, row, unattended)).as(mode.wire() + (unattended ? " unattended" : "") + ": " + row)
                        .isEqualTo("DENY " + row.rule().id());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("reads")
    void everyReadOfTheAllowlistStaysReadOnlyAndRunsInEveryModePlanIncluded(CommandTable.Row row) {
        CommandVerdict v = runner(row);
        assertThat(v.rule()).as(row + " — reason: " + v.reason()).isEqualTo(CommandRule.READ_ONLY);
        assertThat(row.rule()).isEqualTo(CommandRule.READ_ONLY);
        for (PermissionMode mode : PermissionMode.values()) {
            assertThat(gate(mode, row, false)).as(mode.wire() + ": " + row).isEqualTo("ALLOW");
        }
    }
}

package dev.cohort.toolrunner.api;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The runner's own git (worktrees, workspace set-up) never runs a program the repository names outside the team's
 * sandbox. Each vector is written the way a prompt-injected model would write it — with its sandboxed {@code bash} —
 * and then set off through {@code create_worktree} and {@code remove_worktree}. The program it names leaves a marker
 * in {@code /tmp}: on the host's {@code /tmp} it ran with the runner's rights (the escape); inside a sandbox its
 * {@code /tmp} is private and the host never sees it.
 */
@QuarkusTest
class RunnerGitConfinementTest {

    @BeforeEach
    void sandboxed() {
        String chosen = System.getenv("COHORT_SANDBOX");
        Assumptions.assumeFalse("none".equals(chosen), "COHORT_SANDBOX=none: nothing is confined in this run");
    }

    private static String sh(String team, String cwd, String command) {
        ToolCallResult r = call("bash", team, "lead", cwd, args("command", command));
        assertThat(r.error()).as(command).isNull();
        return r.output();
    }

    /** A program for git to run: leaves {@code marker} in /tmp and a line in the team's HOME, then acts as cat. */
    private static String program(String marker) {
        return "#!/bin/sh\ntouch /tmp/" + marker + "\necho ran >> \"$HOME/" + marker + "\"\nexec cat\n";
    }

    /** name, and the repository configuration the model writes ({@code %P}: the program's absolute path). */
    static Stream<Arguments> vectors() {
        return Stream.of(
                Arguments.of("smudge filter", "git config filter.evil.smudge %P && git config filter.evil.clean cat"),
                Arguments.of("clean filter", "git config filter.evil.clean %P && git config filter.evil.smudge cat"),
                Arguments.of("filter process", "git config filter.evil.process %P && git config filter.evil.required false"),
                Arguments.of("core.fsmonitor", "git config core.fsmonitor %P"),
                Arguments.of("include.path", "printf '[filter \"evil\"]\\n\\tsmudge = %P\\n\\tclean = %P\\n' > inc.cfg"
                        + " && git config include.path ../inc.cfg"),
                Arguments.of("includeIf", "printf '[filter \"evil\"]\\n\\tsmudge = %P\\n\\tclean = %P\\n' > inc.cfg"
                        + " && git config 'includeIf.gitdir:/**.path' \"$PWD/inc.cfg\""),
                Arguments.of("diff.external", "git config diff.external %P"),
                Arguments.of("core.alternateRefsCommand", "git config core.alternateRefsCommand %P"),
                Arguments.of("a post-checkout hook", "cp %P .git/hooks/post-checkout"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void aProgramTheRepositoryNamesNeverRunsOutsideTheSandbox(String vector, String configure) throws Exception {
        String team = newTeam();
        String marker = "cohort-escape-" + UUID.randomUUID();
        sh(team, null, "printf '*.txt filter=evil\\n' > .gitattributes && echo alpha > a.txt"
                + " && git add .gitattributes a.txt && git commit -qm content");
        assertThat(call("write_file", team, args("path", "evil.sh", "content", program(marker))).error()).isNull();
        String evil = Calls.workspace(team).toRealPath().resolve("evil.sh").toString();
        // the configuration goes in after the commit, as a model would leave it for the runner to trip over
        sh(team, null, "chmod +x evil.sh && " + configure.replace("%P", evil));

        // it may fail (a filter that dies breaks the checkout): what matters is where the program ran
        call("create_worktree", team, args("name", "wt"));
        // a change of the same size the remove must look at: git status runs the clean filter (and the monitor) to tell
        call("bash", team, "lead", "wt:wt", args("command", "echo bravo > a.txt"));
        call("remove_worktree", team, args("name", "wt"));
        call("remove_worktree", team, args("name", "wt", "discard_changes", true));

        assertThat(Path.of("/tmp", marker)).as("%s ran a program on the host, outside the sandbox", vector)
                .doesNotExist();
    }

    @Test
    void theModelsOwnFiltersStillWorkInsideItsSandboxAndForTheRunnersCheckout() throws Exception {
        String team = newTeam();
        String marker = "cohort-filter-" + UUID.randomUUID();
        sh(team, null, "git config filter.upper.smudge \"sh -c 'echo ran >> \\\"\\$HOME/" + marker + "\\\"; tr a-z A-Z'\""
                + " && git config filter.upper.clean cat"
                + " && printf '*.txt filter=upper\\n' > .gitattributes && echo alpha > a.txt"
                + " && git add .gitattributes a.txt && git commit -qm content");
        // the model's own git, in its own command, runs its filter
        assertThat(sh(team, null, "rm a.txt && git checkout -- a.txt && cat a.txt")).isEqualTo("ALPHA\n");
        // the runner's checkout for create_worktree runs it too, confined to the team's sandbox
        assertThat(call("create_worktree", team, args("name", "up")).error()).isNull();
        assertThat(sh(team, "wt:up", "cat a.txt")).isEqualTo("ALPHA\n");
        Path home = Calls.stateDir().resolve("teams").resolve(team).resolve("home");
        assertThat(Files.readAllLines(home.resolve(marker))).hasSizeGreaterThanOrEqualTo(2).containsOnly("ran");
        assertThat(Path.of("/tmp", marker)).doesNotExist();
    }
}

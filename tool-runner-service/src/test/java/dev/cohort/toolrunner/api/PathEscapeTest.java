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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The path-escape suite: every vector is tried with write_file, edit_file and read_file (and glob/grep where a path
 * applies); all are refused with a model-visible error naming a rule, and nothing outside the workspace changes.
 */
@QuarkusTest
class PathEscapeTest {

    @Test
    void everyEscapeVectorIsRefusedAndNothingIsWrittenOutsideTheWorkspace() throws Exception {
        String team = newTeam();
        Path ws = Calls.workspace(team);
        call("bash", team, args("command", "true"));
        Path outside = Files.createTempDirectory("cohort-outside").toRealPath();
        Path victim = Files.writeString(outside.resolve("victim.txt"), "original");
        Path otherTeam = Calls.workspace(newTeam());
        Files.createDirectories(otherTeam);
        // links made the way an agent would: through bash
        ToolCallResult setup = call("bash", team, args("command", String.join(" && ",
                "mkdir -p sub/deeper",
                "ln -s " + outside + " outdir",
                "ln -s " + victim + " victim-link",
                "ln -s " + outside + "/not-yet.txt dangling",
                "ln -s ../../.. sub/deeper/up",
                "ln -s /etc etc-link",
                "ln -s /proc/self proc-link",
                "ln -s outdir chain",
                "ln -s " + otherTeam + " neighbour",
                "mkfifo fifo")));
        assertThat(setup.error()).isNull();
        assertThat(setup.exitCode()).isZero();

        List<String> vectors = new ArrayList<>(List.of(
                "../escape.txt",
                "../../escape.txt",
                "sub/../../escape.txt",
                "sub/deeper/../../../escape.txt",
                "./../escape.txt",
                outside + "/victim.txt",
                outside + "/new.txt",
                "/etc/passwd",
                "/tmp/cohort-escape.txt",
                ws + "/../escape.txt",
                "outdir/victim.txt",
                "outdir/new.txt",
                "victim-link",
                "dangling",
                "sub/deeper/up/escape.txt",
                "etc-link/hostname",
                "chain/victim.txt",
                "neighbour/stolen.txt",
                "proc-link/environ",
                "/proc/self/environ",
                "/dev/sda",
                "/sys/kernel/notes",
                "fifo",
                "~/escape.txt",
                "a\0b",
                "x/".repeat(2100) + "f",
                "n".repeat(300)));
        assertThat(vectors).hasSizeGreaterThanOrEqualTo(25);

        for (String v : vectors) {
            for (Map.Entry<String, Map<String, Object>> attempt : Map.of(
                    "write_file", args("path", v, "content", "pwned"),
                    "edit_file", args("path", v, "old_text", "original", "new_text", "pwned"),
                    "read_file", args("path", v)).entrySet()) {
                ToolCallResult r = call(attempt.getKey(), team, attempt.getValue());
                assertThat(r.error()).as(attempt.getKey() + " " + abbreviate(v))
                        .isNotNull().containsPattern("\\(rule: [a-z-]+\\)").doesNotContain("rule: internal-error");
                assertThat(r.output()).as(attempt.getKey() + " " + abbreviate(v)).isNull();
            }
        }
        for (String dir : List.of("..", "outdir", "/etc", "neighbour", "sub/deeper/up")) {
            assertThat(call("glob", team, args("pattern", "*", "path", dir)).error()).as("glob " + dir).isNotNull();
            assertThat(call("grep", team, args("pattern", "root", "path", dir)).error()).as("grep " + dir).isNotNull();
        }

        assertThat(victim).hasContent("original");
        try (Stream<Path> s = Files.list(outside)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("victim.txt");
        }
        try (Stream<Path> s = Files.list(otherTeam)) {
            assertThat(s).isEmpty();
        }
        assertThat(ws.getParent().resolve("escape.txt")).doesNotExist();
        assertThat(Path.of("/tmp/cohort-escape.txt")).doesNotExist();
    }

    @Test
    void symlinksThatStayInsideTheWorkspaceAreFollowed() {
        String team = newTeam();
        call("bash", team, args("command", "mkdir -p real && ln -s real alias"));
        assertThat(call("write_file", team, args("path", "alias/x.txt", "content", "ok")).error()).isNull();
        assertThat(Calls.workspace(team).resolve("real/x.txt")).hasContent("ok");
        assertThat(call("read_file", team, args("path", Calls.workspace(team) + "/alias/x.txt")).output())
                .isEqualTo("     1\tok\n");
    }

    private static String abbreviate(String v) {
        return v.length() > 60 ? v.substring(0, 60) + "…" : v.replace("\0", "\\0");
    }
}

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
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The check-then-open race: a background job of the team (what a model can start) swaps a directory of its
 * workspace with a symbolic link to a directory outside it, as fast as it can, while the file tools are called on
 * paths through that directory. A tool that checks the path and then opens it again by name reads or writes outside
 * the workspace whenever the swap lands between the two; the tools must never do so, and must say so with a
 * retryable error instead.
 *
 * <p>The swap is one {@code renameat2(RENAME_EXCHANGE)} (perl's {@code syscall}, x86-64 number 316), so the path
 * always exists and is, at any instant, either the real directory or the link; where that call is not available the
 * job falls back to four plain renames.
 */
@QuarkusTest
class PathSwapRaceTest {
    private static final String MARKER = "OUTSIDE-MARKER";
    private static final int MAX_ROUNDS = 2_000;
    private static final Duration BUDGET = Duration.ofSeconds(45);

    @Test
    void aDirectorySwappedForALinkOutsideNeverLetsAFileToolReadOrWriteThere() throws Exception {
        String team = newTeam();
        Path ws = Calls.workspace(team);
        assertThat(call("bash", team, args("command", "true")).error()).isNull();
        Path outside = Files.createTempDirectory("cohort-race-outside").toRealPath();
        Path outsideSecret = outside.resolve("secret");
        String outsideText = MARKER + " token\n";
        Files.writeString(outsideSecret, outsideText);
        Files.writeString(outside.resolve("outside-only.txt"), MARKER + "\n");

        ToolCallResult setup = call("bash", team, args("command",
                "mkdir dir && printf 'inside token\\n' > dir/secret && ln -s " + outside + " lnk"));
        assertThat(setup.error()).isNull();
        assertThat(setup.exitCode()).isZero();

        String swapper = """
                perl -e '
                  my ($d, $l, $s) = ("dir", "lnk", "stop");
                  my $exchange = syscall(316, -100, $d, -100, $l, 2) == 0;
                  until (-e $s) {
                    for (1 .. 200) {
                      if ($exchange) { syscall(316, -100, $d, -100, $l, 2); }
                      else { rename "dir", "real"; rename "lnk", "dir"; rename "dir", "lnk"; rename "real", "dir"; }
                    }
                  }
                  syscall(316, -100, $d, -100, $l, 2) if $exchange && -l $d;
                  print $exchange ? "exchange\\n" : "renames\\n";
                '""";
        ToolCallResult job = call("bash", team, args("command", swapper, "run_in_background", true,
                "timeout_ms", 120_000));
        assertThat(job.error()).isNull();
        String jobId = job.outputRef().substring("cohort-output://".length());

        Map<String, Integer> escapes = new TreeMap<>();
        Map<String, Integer> refusedByRace = new TreeMap<>();
        int calls = 0;
        long end = System.nanoTime() + BUDGET.toNanos();
        try {
            for (int i = 0; i < MAX_ROUNDS && System.nanoTime() < end; i++) {
                ToolCallResult r;
                switch (i % 5) {
                    case 0 -> {
                        r = call("read_file", team, args("path", "dir/secret"));
                        if (r.output() != null && r.output().contains(MARKER)) {
                            escapes.merge("read_file read outside", 1, Integer::sum);
                        }
                    }
                    case 1 -> {
                        r = call("write_file", team, args("path", "dir/new-" + i + ".txt", "content", "written\n"));
                    }
                    case 2 -> {
                        r = call("edit_file", team, args("path", "dir/secret", "old_text", MARKER,
                                "new_text", "LEAKED"));
                        if (r.error() == null) {
                            escapes.merge("edit_file read outside", 1, Integer::sum);
                        }
                        if (!Files.readString(outsideSecret).contains(MARKER)) {
                            escapes.merge("edit_file wrote outside", 1, Integer::sum);
                            Files.writeString(outsideSecret, outsideText);
                        }
                    }
                    case 3 -> {
                        r = call("grep", team, args("pattern", MARKER, "path", i % 2 == 0 ? "dir" : "."));
                        if (r.output() != null && r.output().contains(MARKER)) {
                            escapes.merge("grep read outside", 1, Integer::sum);
                        }
                    }
                    default -> {
                        r = call("glob", team, args("pattern", "**"));
                        if (r.output() != null && r.output().contains("outside-only")) {
                            escapes.merge("glob listed outside", 1, Integer::sum);
                        }
                    }
                }
                calls++;
                if (r.error() != null && (r.error().contains("rule: symlink-escape")
                        || r.error().contains("rule: path-changed"))) {
                    refusedByRace.merge(r.error().replaceAll(".*\\(rule: ([a-z-]+)\\)$", "$1"), 1, Integer::sum);
                }
            }
        } finally {
            Files.writeString(ws.resolve("stop"), "");
            call("cancel_background", team, args("job_id", jobId));
        }
        long strays;
        try (Stream<Path> s = Files.list(outside)) {
            strays = s.filter(p -> !p.getFileName().toString().equals("secret")
                    && !p.getFileName().toString().equals("outside-only.txt")).count();
        }
        if (strays > 0) {
            escapes.merge("files created outside (write_file, edit_file)", (int) strays, Integer::sum);
        }
        System.out.println("path swap race: " + calls + " calls; escapes " + escapes + "; refused by the race "
                + refusedByRace);

        assertThat(refusedByRace).as("the swapper ran during the calls: some calls met the link").isNotEmpty();
        assertThat(escapes).as("calls that read or wrote outside the workspace").isEmpty();
        assertThat(Files.readString(outsideSecret)).isEqualTo(outsideText);
    }
}

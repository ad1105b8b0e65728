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
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** read_file, write_file, edit_file, glob and grep over HTTP: success and each error case. */
@QuarkusTest
class FileToolsTest {

    private static Path ws(String team) {
        return Calls.workspace(team);
    }

    @Test
    void readFileNumbersLinesAndHonoursOffsetAndLimit() throws Exception {
        String team = newTeam();
        call("bash", team, args("command", "true"));
        Files.writeString(ws(team).resolve("a.txt"), "one\ntwo\nthree\nfour\n");
        assertThat(call("read_file", team, args("path", "a.txt")).output())
                .isEqualTo("     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n");
        ToolCallResult part = call("read_file", team, args("path", "a.txt", "offset", 2, "limit", 2));
        assertThat(part.output()).isEqualTo("     2\ttwo\n     3\tthree\n[… more lines follow; continue with offset=4]");
        assertThat(part.truncated()).isTrue();
        assertThat(call("read_file", team, args("path", "a.txt", "offset", 9)).output())
                .isEqualTo("(the file has 4 lines; offset 9 is past the end)");
    }

    @Test
    void readFileCapsCharactersWithANotice() throws Exception {
        String team = newTeam();
        call("bash", team, args("command", "true"));
        Files.writeString(ws(team).resolve("big.txt"), ("x".repeat(999) + "\n").repeat(200));
        ToolCallResult r = call("read_file", team, args("path", "big.txt"));
        assertThat(r.output()).endsWith("[… output capped at 50000 characters; continue with offset=50]");
        assertThat(r.output().length()).isLessThan(51_000);
        assertThat(r.truncated()).isTrue();
    }

    @Test
    void readFileErrorsAreClear() throws Exception {
        String team = newTeam();
        call("bash", team, args("command", "mkdir d; printf 'a\\0b' > bin.dat; printf '\\xff\\xfe' > latin.txt"));
        assertThat(call("read_file", team, args("path", "missing.txt")).error()).isEqualTo("file not found: missing.txt (rule: not-found)");
        assertThat(call("read_file", team, args("path", "d")).error()).contains("is a directory").contains("rule: is-directory");
        assertThat(call("read_file", team, args("path", "bin.dat")).error()).contains("binary file").contains("rule: binary-file");
        assertThat(call("read_file", team, args("path", "latin.txt")).error()).contains("not valid UTF-8").contains("rule: binary-file");
        assertThat(call("read_file", team, args("path", "d", "offset", 0)).error()).contains("rule: bad-argument");
        assertThat(call("read_file", team, args("path", "cohort-output://../../etc")).error()).contains("rule: bad-output-ref");
    }

    @Test
    void writeFileCreatesParentsAtomicallyAndReportsBytes() throws Exception {
        String team = newTeam();
        ToolCallResult r = call("write_file", team, args("path", "deep/er/x.txt", "content", "héllo\n"));
        assertThat(r.output()).isEqualTo("Created deep/er/x.txt: wrote 7 bytes");
        assertThat(ws(team).resolve("deep/er/x.txt")).hasContent("héllo");
        assertThat(call("write_file", team, args("path", "deep/er/x.txt", "content", "new")).output())
                .isEqualTo("Overwrote deep/er/x.txt: wrote 3 bytes");
        try (var files = Files.list(ws(team).resolve("deep/er"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("x.txt"); // no temp file left
        }
        assertThat(call("write_file", team, args("path", "deep", "content", "x")).error()).contains("rule: is-directory");
        assertThat(call("write_file", team, args("path", "y.txt")).error()).contains("missing required argument 'content'");
    }

    @Test
    void editFileReplacesExactlyOnceAndRefusesAmbiguousEmptyOrAbsentText() throws Exception {
        String team = newTeam();
        call("write_file", team, args("path", "f.txt", "content", "a = 1\nb = 1\nc = 2\n"));
        assertThat(call("edit_file", team, args("path", "f.txt", "old_text", "", "new_text", "x")).error())
                .contains("old_text is empty").contains("rule: empty-old-text");
        assertThat(call("edit_file", team, args("path", "f.txt", "old_text", "zzz", "new_text", "x")).error())
                .contains("was not found").contains("rule: no-match");
        assertThat(call("edit_file", team, args("path", "f.txt", "old_text", "= 1", "new_text", "= 9")).error())
                .contains("occurs 2 times").contains("rule: ambiguous-match");
        assertThat(call("edit_file", team, args("path", "nope.txt", "old_text", "a", "new_text", "b")).error())
                .contains("rule: not-found");
        assertThat(call("edit_file", team, args("path", "f.txt", "old_text", "c = 2", "new_text", "c = 3")).output())
                .isEqualTo("Edited f.txt: replaced 1 occurrence");
        assertThat(call("edit_file", team, args("path", "f.txt", "old_text", "= 1", "new_text", "= 9", "replace_all", true)).output())
                .isEqualTo("Edited f.txt: replaced 2 occurrences");
        assertThat(ws(team).resolve("f.txt")).hasContent("a = 9\nb = 9\nc = 3");
    }

    @Test
    void editFileKeepsCrlfLineEndings() throws Exception {
        String team = newTeam();
        call("bash", team, args("command", "printf 'one\\r\\ntwo\\r\\nthree\\r\\n' > w.txt"));
        ToolCallResult r = call("edit_file", team, args("path", "w.txt", "old_text", "one\ntwo", "new_text", "1\n2"));
        assertThat(r.error()).isNull();
        assertThat(Files.readString(ws(team).resolve("w.txt"))).isEqualTo("1\r\n2\r\nthree\r\n");
    }

    @Test
    void concurrentWritesToOneFileAreSerialisedAndNeverTorn() throws Exception {
        String team = newTeam();
        call("write_file", team, args("path", "log.txt", "content", "END"));
        List<String> contents = IntStream.range(0, 16).mapToObj(i -> ("w" + i + "-").repeat(20_000)).toList();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<ToolCallResult>> fs = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                String c = contents.get(i);
                int n = i;
                fs.add(pool.submit(() -> call("write_file", team, args("path", "same.txt", "content", c))));
                fs.add(pool.submit(() -> call("edit_file", team, args("path", "log.txt", "old_text", "END",
                        "new_text", "line-" + n + "\nEND"))));
            }
            for (Future<ToolCallResult> f : fs) {
                assertThat(f.get().error()).isNull();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(contents).contains(Files.readString(ws(team).resolve("same.txt")));
        String log = Files.readString(ws(team).resolve("log.txt"));
        for (int i = 0; i < 16; i++) {
            assertThat(log).contains("line-" + i + "\n");
        }
    }

    @Test
    void globIsRecursiveNewestFirstIncludesDotfilesAndIsCapped() throws Exception {
        String team = newTeam();
        call("bash", team, args("command", "mkdir -p src/a/b .hidden && touch Top.java src/A.java src/a/b/B.java .hidden/H.java x.txt"));
        Path w = ws(team);
        Files.setLastModifiedTime(w.resolve("src/a/b/B.java"), FileTime.from(Instant.now().plusSeconds(100)));
        Files.setLastModifiedTime(w.resolve("Top.java"), FileTime.from(Instant.now().minusSeconds(100)));
        ToolCallResult r = call("glob", team, args("pattern", "**/*.java"));
        List<String> lines = r.output().lines().toList();
        assertThat(lines).hasSize(4).first().isEqualTo("src/a/b/B.java");
        assertThat(lines).last().isEqualTo("Top.java");
        assertThat(lines).contains(".hidden/H.java", "src/A.java");
        assertThat(call("glob", team, args("pattern", "*.java", "path", "src")).output()).isEqualTo("src/A.java");
        assertThat(call("glob", team, args("pattern", "*.none")).output()).isEqualTo("(no matches)");
        call("bash", team, args("command", "mkdir many && for i in $(seq 1 250); do touch many/f$i.txt; done"));
        ToolCallResult capped = call("glob", team, args("pattern", "many/*.txt"));
        assertThat(capped.output().lines().filter(l -> l.startsWith("many/"))).hasSize(200);
        assertThat(capped.output()).endsWith("[… 50 more matches not shown (250 in total); narrow the pattern or the path]");
        assertThat(capped.truncated()).isTrue();
        assertThat(call("glob", team, args("pattern", "../*")).error()).contains("rule: workspace-containment");
        assertThat(call("glob", team, args("pattern", "/etc/*")).error()).contains("rule: workspace-containment");
    }

    @Test
    void grepFindsRegexMatchesAsFileLineTextAndIsCapped() throws Exception {
        String team = newTeam();
        call("write_file", team, args("path", "src/A.java", "content", "class A {\n  // TODO fix\n}\n"));
        call("write_file", team, args("path", "src/b.txt", "content", "todo later\nnothing\n"));
        call("bash", team, args("command", "printf 'TODO\\0bin' > src/bin.dat"));
        assertThat(call("grep", team, args("pattern", "TODO")).output()).isEqualTo("src/A.java:2:  // TODO fix");
        assertThat(call("grep", team, args("pattern", "todo", "ignore_case", true)).output())
                .isEqualTo("src/A.java:2:  // TODO fix\nsrc/b.txt:1:todo later");
        assertThat(call("grep", team, args("pattern", "o", "glob", "*.txt", "path", "src")).output())
                .isEqualTo("src/b.txt:1:todo later\nsrc/b.txt:2:nothing");
        assertThat(call("grep", team, args("pattern", "x{2,}")).output()).isEqualTo("(no matches)");
        ToolCallResult capped = call("grep", team, args("pattern", ".", "max_results", 2));
        assertThat(capped.output()).endsWith("[… 3 more matches not shown (5 in total); narrow the pattern, path or glob, or raise max_results]");
        assertThat(capped.truncated()).isTrue();
        assertThat(call("grep", team, args("pattern", "(unclosed")).error()).contains("invalid regular expression")
                .contains("rule: bad-argument");
        assertThat(call("grep", team, args("pattern", "a", "max_results", 0)).error()).contains("max_results must be between 1 and 1000");
        assertThat(call("grep", team, args("pattern", "a", "path", "../..")).error()).contains("rule: workspace-containment");
    }
}

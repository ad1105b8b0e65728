package dev.cohort.toolrunner.tools;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code file_tree} over HTTP: its shape, each bound and what it says it left out, and its errors. */
@QuarkusTest
class FileTreeToolTest {

    private String team;

    /** A new team's workspace (its {@code .git} and {@code .cohort} are there already). */
    private Path workspace() throws Exception {
        team = newTeam();
        call("bash", team, args("command", "true"));
        return Calls.workspace(team);
    }

    private ToolCallResult tree(Object... kv) {
        return call("file_tree", team, args(kv));
    }

    private static void touch(Path file) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "x");
    }

    @Test
    void showsDirectoriesFirstDownToTheDepthAndCountsWhatIsDeeper() throws Exception {
        Path ws = workspace();
        Path proj = ws.resolve("proj");
        touch(proj.resolve("README.md"));
        touch(proj.resolve("src/main/App.java"));
        touch(proj.resolve("src/main/deep/er/X.java"));
        touch(proj.resolve("src/main/deep/Y.java"));
        touch(proj.resolve("docs/guide.md"));
        Files.createDirectories(proj.resolve("empty"));

        ToolCallResult r = tree("path", "proj", "depth", 3);
        assertThat(r.error()).isNull();
        assertThat(r.output()).isEqualTo("""
                proj/
                  docs/
                    guide.md
                  empty/ (empty)
                  src/
                    main/
                      deep/ (2 entries, deeper than the depth)
                      App.java
                  README.md""");
        assertThat(r.truncated()).isNull();

        assertThat(tree("path", "proj/src", "depth", 1).output()).isEqualTo("""
                proj/src/
                  main/ (2 entries, deeper than the depth)""");
        // the working directory by default: the workspace, whose .git is left out and said so
        assertThat(tree("depth", 1).output()).contains("./\n", "  proj/ (4 entries, deeper than the depth)")
                .endsWith("[not shown: 1 directory like .git or node_modules]");
    }

    @Test
    void showsAtMostTwentyEntriesPerDirectoryAndCountsTheRest() throws Exception {
        Path ws = workspace();
        for (int i = 0; i < 23; i++) {
            touch(ws.resolve("many/f" + (char) ('a' + i) + ".txt"));
        }
        Files.createDirectories(ws.resolve("many/zdir"));
        String out = tree("path", "many").output();
        assertThat(out).contains("  zdir/ (empty)", "  fa.txt", "  fs.txt").doesNotContain("ft.txt");
        assertThat(out).contains("[… 4 more entries not shown (0 directories, 4 files)]");
    }

    @Test
    void skipsGitDependencyDirectoriesAndIgnoredFilesAndSaysSo() throws Exception {
        Path ws = workspace();
        Path proj = ws.resolve("proj");
        touch(proj.resolve(".git/HEAD"));
        touch(proj.resolve("node_modules/left-pad/index.js"));
        touch(proj.resolve("target/classes/A.class"));
        touch(proj.resolve("build.log"));
        touch(proj.resolve("app/secret.txt"));
        touch(proj.resolve("app/main.py"));
        Files.writeString(ws.resolve(".gitignore"), "# build output\ntarget/\n*.log\n!keep.log\n");
        Files.writeString(proj.resolve("app/.gitignore"), "secret.txt\n");

        String out = tree("path", "proj").output();
        assertThat(out).isEqualTo("""
                proj/
                  app/
                    .gitignore
                    main.py
                [not shown: 2 directories like .git or node_modules, 3 entries ignored by .gitignore]""");
        // the ignore files of the base and of the directories above it apply when a subdirectory is asked for
        assertThat(tree("path", "proj/app").output()).doesNotContain("secret.txt").contains("main.py");
    }

    @Test
    void clipsALargeTreeWithAMarker() throws Exception {
        Path ws = workspace();
        for (int d = 0; d < 20; d++) {
            for (int f = 0; f < 20; f++) {
                touch(ws.resolve("module-" + d + "/src/File" + f + "WithAFairlyLongName.java"));
            }
        }
        ToolCallResult r = tree("depth", 3);
        assertThat(r.output().length()).isLessThan(FileTreeTool.MAX_CHARS + 200);
        assertThat(r.output()).containsPattern("\n\\[tree clipped at 4000 characters: \\d+ more lines not shown; ask "
                + "for a subdirectory or a smaller depth]\n");
        assertThat(r.truncated()).isTrue();
    }

    @Test
    void badArgumentsAndPathsAreClearErrors() throws Exception {
        Path ws = workspace();
        touch(ws.resolve("file.txt"));
        assertThat(tree("depth", 0).error()).contains("depth must be 1 to 8, not 0").contains("rule: bad-argument");
        assertThat(tree("depth", 9).error()).contains("rule: bad-argument");
        assertThat(tree("path", "file.txt").error()).contains("is not a directory").contains("rule: not-a-directory");
        assertThat(tree("path", "../..").error()).contains("rule: workspace-containment");
        assertThat(tree("pattern", "*").error()).contains("unknown argument(s) [pattern]");
    }

    @Test
    void aLinkIsListedNotFollowed() throws Exception {
        Path ws = workspace();
        Files.createSymbolicLink(ws.resolve("etc-link"), Path.of("/etc"));
        String out = tree().output();
        assertThat(out).contains("  etc-link -> (link)").doesNotContain("passwd");
    }
}

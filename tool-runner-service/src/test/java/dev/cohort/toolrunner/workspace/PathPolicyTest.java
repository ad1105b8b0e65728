package dev.cohort.toolrunner.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.toolrunner.ToolError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Path containment as a pure policy (the HTTP suite in {@code PathEscapeTest} covers the tools end to end). */
class PathPolicyTest {
    @TempDir
    Path tmp;
    Path root;
    Path outside;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        outside = Files.createDirectories(tmp.resolve("outside")).toRealPath();
        Files.createDirectories(root.resolve("src"));
        Files.createSymbolicLink(root.resolve("out-link"), outside);
        Files.createSymbolicLink(root.resolve("in-link"), root.resolve("src"));
        Files.createSymbolicLink(root.resolve("dangling"), outside.resolve("nothing-yet"));
    }

    private String rule(String p) {
        try {
            PathPolicy.resolveForFileAccess(root, root, p);
            return "allowed";
        } catch (ToolError e) {
            return e.rule();
        }
    }

    @Test
    void pathsInsideTheWorkspaceResolveToTheirRealLocation() {
        assertThat(PathPolicy.resolve(root, root, "src/A.java")).isEqualTo(root.resolve("src/A.java"));
        assertThat(PathPolicy.resolve(root, root, "in-link/A.java")).isEqualTo(root.resolve("src/A.java"));
        assertThat(PathPolicy.resolve(root, root.resolve("src"), "../new/B.java")).isEqualTo(root.resolve("new/B.java"));
        assertThat(PathPolicy.resolve(root, root, root + "/src")).isEqualTo(root.resolve("src"));
    }

    @Test
    void anotherTeamsWorkspaceInsideTheRootIsRefusedHoweverItIsSpelled() throws Exception {
        Path teams = Files.createDirectories(root.resolve("teams"));
        Files.createDirectories(teams.resolve("other"));
        Files.createSymbolicLink(root.resolve("to-other"), Path.of("teams/other"));
        Files.createSymbolicLink(root.resolve("to-root"), root);
        List<Path> others = List.of(teams);
        for (String p : new String[] {"teams", "teams/other/x", "src/../teams/other/x", root + "/teams/other/new/x",
            "to-other/x", "to-root/teams/other", "./teams/../teams/other"}) {
            assertThatThrownBy(() -> PathPolicy.resolveForFileAccess(root, root, p, others)).as(p)
                    .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("other-team-workspace"));
        }
        assertThat(PathPolicy.resolveForFileAccess(root, root, "teams-notes.md", others))
                .isEqualTo(root.resolve("teams-notes.md"));
        assertThat(PathPolicy.inside(root, List.of(root, teams, tmp, outside))).containsExactly(teams);
    }

    @Test
    void escapesAreRefusedWithTheRuleThatApplied() {
        assertThat(rule("../x")).isEqualTo("workspace-containment");
        assertThat(rule("/etc/passwd")).isEqualTo("workspace-containment");
        assertThat(rule("out-link/x")).isEqualTo("symlink-escape");
        assertThat(rule("dangling")).isEqualTo("symlink-escape");
        assertThat(rule("/proc/self/environ")).isEqualTo("special-filesystem");
        assertThat(rule("/dev/sda")).isEqualTo("special-filesystem");
        assertThat(rule("a\0b")).isEqualTo("nul-byte");
        assertThat(rule("a/".repeat(3000))).isEqualTo("path-too-long");
        assertThat(rule("~/x")).isEqualTo("workspace-containment");
        assertThat(rule("")).isEqualTo("bad-argument");
    }

    @Test
    void aWorktreeRootDoesNotLetDotDotReachTheMainWorkspace() {
        Path wt = root.resolve("src");
        assertThatThrownBy(() -> PathPolicy.resolve(wt, wt, "../README.md")).isInstanceOf(ToolError.class)
                .hasMessageContaining("outside the workspace");
    }
}

package dev.cohort.toolrunner.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

package dev.cohort.toolrunner.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.toolrunner.ToolError;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * Opening beneath the root without following links, without a race: the state a swap leaves behind (a checked real
 * path whose directory is now a link) is set up directly, and each operation must refuse it and touch nothing
 * outside.
 */
class ContainedFilesTest {
    @TempDir
    Path tmp;

    private Path root() throws Exception {
        return Files.createDirectories(tmp.resolve("ws")).toRealPath();
    }

    @Test
    void thisJavaGivesASecureDirectoryStream() throws Exception {
        try (SecureDirectoryStream<Path> ds = ContainedFiles.openRoot(root())) {
            assertThat(ds).isNotNull();
        }
    }

    @Test
    void aDirectoryOfTheCheckedPathThatIsNowALinkFailsEveryOperationWithPathChanged() throws Exception {
        Path root = root();
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "OUTSIDE");
        Path checked = root.resolve("dir/secret"); // what the check saw: dir a real directory
        Files.createSymbolicLink(root.resolve("dir"), outside); // what a swap left

        assertThatThrownBy(() -> ContainedFiles.openForRead(root, checked, "dir/secret"))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("path-changed"));
        assertThatThrownBy(() -> TextFiles.readUtf8(root, checked, "dir/secret"))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("path-changed"));
        assertThatThrownBy(() -> ContainedFiles.writeAtomically(root, List.of(), root.resolve("dir/new.txt"),
                "x".getBytes(StandardCharsets.UTF_8), "dir/new.txt"))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("path-changed"))
                .hasMessageContaining("try again");
        assertThatThrownBy(() -> ContainedFiles.openDirectory(root, root.resolve("dir"), "dir"))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("path-changed"));
        FileWalker.Listing l = FileWalker.walk(root, root, Long.MAX_VALUE, 1000, List.of());
        assertThat(l.files()).isEmpty();
        try (Stream<Path> s = Files.list(outside)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("secret");
        }
    }

    @Test
    void aFileThatIsNowALinkIsRefusedAndAWriteReplacesTheLinkInsteadOfFollowingIt() throws Exception {
        Path root = root();
        Path victim = Files.writeString(tmp.resolve("victim"), "OUTSIDE");
        Files.createSymbolicLink(root.resolve("f"), victim);

        assertThatThrownBy(() -> ContainedFiles.openForRead(root, root.resolve("f"), "f"))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("path-changed"));
        ContainedFiles.writeAtomically(root, List.of(), root.resolve("f"), "inside".getBytes(StandardCharsets.UTF_8),
                "f");
        assertThat(Files.isSymbolicLink(root.resolve("f"))).isFalse();
        assertThat(Files.readString(root.resolve("f"))).isEqualTo("inside");
        assertThat(Files.readString(victim)).isEqualTo("OUTSIDE");
    }

    @Test
    void writesCreateMissingDirectoriesKeepPermissionsAndLeaveNoTemporaryFile() throws Exception {
        Path root = root();
        Path f = root.resolve("a/b/c.txt");
        ContainedFiles.writeAtomically(root, List.of(), f, "one".getBytes(StandardCharsets.UTF_8), "a/b/c.txt");
        assertThat(Files.readString(f)).isEqualTo("one");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-r--r--");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-x---"));
        ContainedFiles.writeAtomically(root, List.of(), f, "two".getBytes(StandardCharsets.UTF_8), "a/b/c.txt");
        assertThat(Files.readString(f)).isEqualTo("two");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rwxr-x---");
        try (Stream<Path> s = Files.list(f.getParent())) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("c.txt");
        }
        try (SeekableByteChannel ch = ContainedFiles.openForRead(root, f, "a/b/c.txt")) {
            assertThat(new String(ContainedFiles.readAll(ch), StandardCharsets.UTF_8)).isEqualTo("two");
        }
        assertThatThrownBy(() -> ContainedFiles.openForRead(root, root.resolve("a/missing"), "a/missing"))
                .isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> ContainedFiles.writeAtomically(root, List.of(), root.resolve("a/b/c.txt/d"),
                new byte[0], "a/b/c.txt/d"))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.rule()).isEqualTo("not-a-directory"));
    }
}

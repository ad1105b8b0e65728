package dev.cohort.toolrunner.service;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;

/** File helpers shared by the file tools: binary detection, strict UTF-8 reads, atomic writes. */
public final class TextFiles {
    /** Bytes inspected for a NUL to call a file binary (the same heuristic as git and grep). */
    static final int SNIFF_BYTES = 8192;

    private TextFiles() {
    }

    /** {@code true} when the first bytes contain a NUL. */
    public static boolean looksBinary(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] head = in.readNBytes(SNIFF_BYTES);
            for (byte b : head) {
                if (b == 0) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Reads a whole file as strict UTF-8; binary or invalid text is a model-visible error. */
    public static String readUtf8(Path file, String display) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int k = 0; k < Math.min(bytes.length, SNIFF_BYTES); k++) {
            if (bytes[k] == 0) {
                throw binary(display);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ToolError("binary-file", "'" + display + "' is not valid UTF-8 text; it cannot be edited as text");
        }
    }

    static ToolError binary(String display) {
        return new ToolError("binary-file", "'" + display
                + "' is a binary file; read_file shows text only (inspect it with bash, e.g. 'file' or 'xxd | head')");
    }

    /**
     * Writes {@code bytes} to {@code target} atomically: a temporary file in the same directory, then a rename over
     * the target (which replaces a symlink swapped in meanwhile instead of following it). Keeps the permissions of
     * an existing file. The parent is re-checked against {@code root} after it was created.
     */
    public static void writeAtomically(Path root, Path target, byte[] bytes, String display) throws IOException {
        writeAtomically(root, List.of(), target, bytes, display);
    }

    /**
     * As {@link #writeAtomically(Path, Path, byte[], String)}; the re-checked parent must not lie in one of
     * {@code otherTeams} either (a link swapped in meanwhile that points into another team's workspace).
     */
    public static void writeAtomically(Path root, List<Path> otherTeams, Path target, byte[] bytes, String display)
            throws IOException {
        Path parent = target.getParent();
        Files.createDirectories(parent);
        Path realParent = parent.toRealPath();
        if (!realParent.startsWith(root)) {
            throw new ToolError("symlink-escape", "the directory of '" + display
                    + "' was replaced by a link out of the workspace");
        }
        PathPolicy.refuseOtherTeams(realParent, otherTeams, display);
        Set<PosixFilePermission> perms = null;
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            perms = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
        }
        Path tmp = Files.createTempFile(parent, "." + target.getFileName() + ".", ".cohort-tmp");
        try {
            Files.write(tmp, bytes);
            if (perms != null) {
                Files.getFileAttributeView(tmp, PosixFileAttributeView.class).setPermissions(perms);
            } else {
                Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}

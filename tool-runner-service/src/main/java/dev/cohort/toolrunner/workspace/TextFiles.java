package dev.cohort.toolrunner.workspace;

import dev.cohort.toolrunner.ToolError;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/** File helpers shared by the file tools: binary detection, strict UTF-8 reads, atomic writes. */
public final class TextFiles {
    /** Bytes inspected for a NUL to call a file binary (the same heuristic as git and grep). */
    static final int SNIFF_BYTES = 8192;

    private TextFiles() {
    }

    /**
     * {@code true} when the first bytes of {@code ch} contain a NUL; the channel is left at position 0, so the caller
     * reads the same file it inspected.
     */
    public static boolean looksBinary(SeekableByteChannel ch) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(SNIFF_BYTES);
        while (head.hasRemaining() && ch.read(head) >= 0) {
            // fill the sniff window or reach the end
        }
        ch.position(0);
        for (int k = 0; k < head.position(); k++) {
            if (head.get(k) == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads a whole file of the workspace as strict UTF-8, opened from the root's handle ({@link ContainedFiles});
     * binary or invalid text is a model-visible error.
     */
    public static String readUtf8(Path root, Path file, String display) throws IOException {
        byte[] bytes;
        try (SeekableByteChannel ch = ContainedFiles.openForRead(root, file, display)) {
            bytes = ContainedFiles.readAll(ch);
        } catch (NoSuchFileException e) {
            throw new ToolError("not-found", "file not found: " + display);
        }
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
     * Writes {@code bytes} to {@code target} (a real path inside {@code root}) atomically, through the parent's
     * directory handle: see {@link ContainedFiles#writeAtomically}. The parent must not lie in one of
     * {@code otherTeams}.
     */
    public static void writeAtomically(Path root, List<Path> otherTeams, Path target, byte[] bytes, String display)
            throws IOException {
        ContainedFiles.writeAtomically(root, otherTeams, target, bytes, display);
    }
}

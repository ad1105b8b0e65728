package dev.cohort.toolrunner.workspace;

import java.io.IOException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Lists the regular files under a directory for glob and grep: symlinks are not followed (a link to {@code /} must
 * not make a search leave the workspace), {@code .git} and other teams' workspaces are skipped, and the walk stops
 * at a deadline or a file count.
 */
public final class FileWalker {
    /** A file with its modification time. */
    public record Entry(Path path, long mtime, long size) {
    }

    /** The result; {@code complete == false} when a bound stopped the walk. */
    public record Listing(List<Entry> files, boolean complete) {
    }

    private FileWalker() {
    }

    /**
     * Lists the regular files under {@code base} (a real directory path inside {@code root}), never entering
     * {@code skipped} (real paths: other teams' workspaces inside the root), so a search lists nothing of them.
     *
     * <p>The walk opens {@code base} from the root's directory handle and each subdirectory from its parent's handle,
     * never following a link ({@link ContainedFiles}): a directory swapped for a link during the walk is not entered
     * (the link is not a directory, or opening it fails and it is skipped), so nothing outside the root is listed.
     */
    public static Listing walk(Path root, Path base, long deadlineNanos, int maxFiles, List<Path> skipped)
            throws IOException {
        List<Entry> files = new ArrayList<>();
        boolean complete = true;
        if (skipped.stream().noneMatch(base::startsWith)) {
            try (SecureDirectoryStream<Path> ds = ContainedFiles.openDirectory(root, base, root.relativize(base)
                    .toString())) {
                complete = visit(ds, base, base, deadlineNanos, maxFiles, skipped, files);
            }
        }
        files.sort(Comparator.comparing(e -> e.path().toString()));
        return new Listing(files, complete);
    }

    /** An entry of a directory: its name and its attributes (a link's own, never its target's). */
    public record Named(Path name, BasicFileAttributes attributes) {
    }

    /**
     * The entries of the open directory {@code ds} with their attributes, not following links; entries that cannot be
     * read, or are gone by the time they are looked at, are left out.
     */
    public static List<Named> entries(SecureDirectoryStream<Path> ds) {
        List<Path> names = new ArrayList<>();
        try {
            for (Path p : ds) {
                names.add(p.getFileName());
            }
        } catch (DirectoryIteratorException e) {
            // unreadable entries are skipped, not fatal
        }
        List<Named> out = new ArrayList<>(names.size());
        for (Path name : names) {
            try {
                BasicFileAttributes a = ContainedFiles.attributes(ds, name);
                if (a != null) {
                    out.add(new Named(name, a));
                }
            } catch (IOException e) {
                // unreadable entries are skipped, not fatal
            }
        }
        return out;
    }

    /** Adds the regular files under {@code ds} (the directory at {@code dir}); {@code false} when a bound stopped it. */
    private static boolean visit(SecureDirectoryStream<Path> ds, Path dir, Path base, long deadlineNanos,
            int maxFiles, List<Path> skipped, List<Entry> files) {
        for (Named entry : entries(ds)) {
            Path name = entry.name();
            BasicFileAttributes a = entry.attributes();
            Path child = dir.resolve(name);
            if (a.isDirectory()) {
                if (name.toString().equals(".git") || skipped.stream().anyMatch(child::startsWith)) {
                    continue;
                }
                if (System.nanoTime() > deadlineNanos) {
                    return false;
                }
                try (SecureDirectoryStream<Path> sub = ds.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    if (!visit(sub, child, base, deadlineNanos, maxFiles, skipped, files)) {
                        return false;
                    }
                } catch (IOException e) {
                    // unreadable, or swapped for a link since it was looked at: not entered
                }
            } else if (a.isRegularFile()) {
                files.add(new Entry(child, a.lastModifiedTime().toMillis(), a.size()));
                if (files.size() >= maxFiles || System.nanoTime() > deadlineNanos) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * A {@code CharSequence} that throws once a deadline passed: regex matching reads through it, so catastrophic
     * backtracking cannot hold a worker for ever.
     */
    public static final class Deadline implements CharSequence {
        private final CharSequence s;
        private final long deadline;
        private int calls;

        public Deadline(CharSequence s, long deadlineNanos) {
            this.s = s;
            this.deadline = deadlineNanos;
        }

        @Override
        public char charAt(int index) {
            if ((++calls & 0xFFF) == 0 && System.nanoTime() > deadline) {
                throw new DeadlineExceeded();
            }
            return s.charAt(index);
        }

        @Override
        public int length() {
            return s.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Deadline(s.subSequence(start, end), deadline);
        }

        @Override
        public String toString() {
            return s.toString();
        }
    }

    /** Thrown by {@link Deadline}. */
    public static final class DeadlineExceeded extends RuntimeException {
        public DeadlineExceeded() {
            super("deadline exceeded", null, false, false);
        }
    }
}

package dev.cohort.toolrunner.service;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
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

    public static Listing walk(Path base, long deadlineNanos, int maxFiles) throws IOException {
        return walk(base, deadlineNanos, maxFiles, List.of());
    }

    /**
     * As {@link #walk(Path, long, int)}, never entering {@code skipped} (real paths: other teams' workspaces inside
     * the root), so a search lists nothing of them.
     */
    public static Listing walk(Path base, long deadlineNanos, int maxFiles, List<Path> skipped) throws IOException {
        List<Entry> files = new ArrayList<>();
        boolean[] stopped = {false};
        Files.walkFileTree(base, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (!dir.equals(base) && dir.getFileName().toString().equals(".git")) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                if (!skipped.isEmpty() && skipped.stream().anyMatch(dir::startsWith)) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    files.add(new Entry(file, attrs.lastModifiedTime().toMillis(), attrs.size()));
                }
                if (files.size() >= maxFiles || System.nanoTime() > deadlineNanos) {
                    stopped[0] = true;
                    return FileVisitResult.TERMINATE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                return FileVisitResult.CONTINUE; // unreadable entries are skipped, not fatal
            }
        });
        files.sort(Comparator.comparing(e -> e.path().toString()));
        return new Listing(files, !stopped[0]);
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

package dev.cohort.toolrunner.workspace;

import dev.cohort.toolrunner.ToolError;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;

/**
 * Opens files and directories beneath the containment root without ever following a symbolic link on the way.
 *
 * <p>{@link PathPolicy} decides where a path leads (its real path, every link resolved) and whether that place is
 * allowed; but a command of the team runs at the same time and can replace a directory of that path by a link to
 * anywhere between the check and the open. So nothing here opens a path by its name from {@code /}: it opens the root,
 * then walks the checked real path one component at a time from that directory handle ({@code openat} with
 * {@code O_NOFOLLOW}, through {@link SecureDirectoryStream}). Every component it passes is therefore a real directory
 * inside the root at the moment it is passed; one that has become a link (or anything but a directory) stops the
 * call with rule {@code path-changed}, a retryable error, and nothing outside the root is touched.
 *
 * <p>Writes create a temporary file in the opened parent directory and rename it over the target within that same
 * directory handle ({@code renameat}), so they land exactly where the checks said.
 *
 * <p>On a Java runtime whose default file system does not give a {@link SecureDirectoryStream} (only non-Linux, non-
 * POSIX systems), every file tool call fails closed with rule {@code unsupported-platform}.
 */
public final class ContainedFiles {
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ContainedFiles() {
    }

    /** The error of a call that met a path which was swapped (for a link, or a file for a directory) meanwhile. */
    public static ToolError pathChanged(String display) {
        return new ToolError("path-changed", "the path '" + display + "' changed while it was being opened (a"
                + " directory or file on the way was replaced, e.g. by a symbolic link); nothing was read or written;"
                + " try again");
    }

    /** Opens the containment root itself (its real path) as a directory handle. */
    static SecureDirectoryStream<Path> openRoot(Path root) throws IOException {
        DirectoryStream<Path> ds = Files.newDirectoryStream(root);
        if (ds instanceof SecureDirectoryStream<Path> s) {
            return s;
        }
        ds.close();
        throw new ToolError("unsupported-platform", "this Java runtime cannot open files relative to a directory"
                + " handle (no SecureDirectoryStream), so the file tools cannot open paths safely and refuse to run;"
                + " use bash instead");
    }

    /**
     * Opens directory {@code dir} (a real path inside {@code root}, or the root) by walking it from the root without
     * following links.
     *
     * @throws NoSuchFileException when a component does not exist
     * @throws ToolError           {@code path-changed} when a component is not a directory (now a link, a file)
     */
    public static SecureDirectoryStream<Path> openDirectory(Path root, Path dir, String display) throws IOException {
        return walk(root, dir, display, false);
    }

    /** As {@link #openDirectory}, creating the missing directories on the way (for writes). */
    static SecureDirectoryStream<Path> openOrCreateDirectory(Path root, Path dir, String display) throws IOException {
        return walk(root, dir, display, true);
    }

    private static SecureDirectoryStream<Path> walk(Path root, Path dir, String display, boolean create)
            throws IOException {
        if (!dir.startsWith(root)) {
            throw new ToolError("workspace-containment", "path '" + display + "' is outside the workspace");
        }
        SecureDirectoryStream<Path> cur = openRoot(root);
        Path at = root;
        try {
            for (Path name : root.relativize(dir)) {
                if (name.toString().isEmpty()) {
                    continue; // the root itself
                }
                if (name.toString().equals("..") || name.toString().equals(".")) {
                    throw pathChanged(display); // never in a real path
                }
                at = at.resolve(name);
                SecureDirectoryStream<Path> next;
                try {
                    next = cur.newDirectoryStream(name, NOFOLLOW);
                } catch (NoSuchFileException e) {
                    if (!create) {
                        throw e;
                    }
                    // No mkdirat in Java: the directory is created by name, then opened from the handle without
                    // following links, so a swap at this moment fails the call below instead of going elsewhere.
                    try {
                        Files.createDirectory(at);
                    } catch (FileAlreadyExistsException raced) {
                        // made meanwhile: opened (and checked) below like any other
                    }
                    next = openChild(cur, name, root.relativize(at), display);
                } catch (AccessDeniedException e) {
                    throw e;
                } catch (FileSystemException e) {
                    throw notADirectory(cur, name, root.relativize(at), display);
                }
                cur.close();
                cur = next;
            }
            SecureDirectoryStream<Path> result = cur;
            cur = null;
            return result;
        } finally {
            if (cur != null) {
                cur.close();
            }
        }
    }

    private static SecureDirectoryStream<Path> openChild(SecureDirectoryStream<Path> dir, Path name, Path shown,
            String display) throws IOException {
        try {
            return dir.newDirectoryStream(name, NOFOLLOW);
        } catch (NoSuchFileException | AccessDeniedException e) {
            throw e;
        } catch (FileSystemException e) {
            throw notADirectory(dir, name, shown, display);
        }
    }

    /**
     * Why component {@code name} of {@code dir} could not be opened as a directory: a link (or something that changed
     * under the call) is {@code path-changed}; a regular file or a special file is plainly not a directory.
     */
    private static IOException notADirectory(SecureDirectoryStream<Path> dir, Path name, Path shown, String display)
            throws IOException {
        BasicFileAttributes a = attributes(dir, name);
        if (a == null) {
            return new NoSuchFileException(display);
        }
        if (a.isSymbolicLink() || a.isDirectory()) {
            throw pathChanged(display);
        }
        throw new ToolError("not-a-directory", "'" + shown + "' in the path '" + display + "' is not a directory");
    }

    /** The attributes of {@code name} in {@code dir}, not following a link; {@code null} when it does not exist. */
    public static BasicFileAttributes attributes(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        try {
            return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW).readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Opens regular file {@code file} (a real path inside {@code root}) for reading, every component opened from the
     * root's handle without following links.
     *
     * @throws NoSuchFileException when it (or a directory on the way) does not exist
     * @throws ToolError           {@code path-changed} (a link met on the way or as the file), {@code is-directory},
     *                             {@code special-file}
     */
    public static SeekableByteChannel openForRead(Path root, Path file, String display) throws IOException {
        if (file.equals(root)) {
            throw new ToolError("is-directory", "'" + display + "' is a directory");
        }
        try (SecureDirectoryStream<Path> dir = openDirectory(root, file.getParent(), display)) {
            Path name = file.getFileName();
            BasicFileAttributes a = attributes(dir, name);
            if (a == null) {
                throw new NoSuchFileException(display);
            }
            if (a.isSymbolicLink()) {
                throw pathChanged(display);
            }
            if (a.isDirectory()) {
                throw new ToolError("is-directory", "'" + display + "' is a directory");
            }
            if (!a.isRegularFile()) {
                throw new ToolError("special-file", "'" + display
                        + "' is a device, FIFO or socket; only regular files and directories are accessible");
            }
            try {
                return dir.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW));
            } catch (NoSuchFileException | AccessDeniedException e) {
                throw e;
            } catch (FileSystemException e) {
                throw pathChanged(display); // became a link after the look above
            }
        }
    }

    /** Reads the whole of a channel (a file opened by {@link #openForRead}). */
    public static byte[] readAll(SeekableByteChannel ch) throws IOException {
        long size = ch.size();
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(Math.max(size, 8192), Integer.MAX_VALUE - 8));
        while (true) {
            if (!buf.hasRemaining()) {
                ByteBuffer bigger = ByteBuffer.allocate((int) Math.min((long) buf.capacity() * 2,
                        Integer.MAX_VALUE - 8));
                if (bigger.capacity() == buf.capacity()) {
                    throw new IOException("file too large to read into memory");
                }
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
            if (ch.read(buf) < 0) {
                break;
            }
        }
        byte[] out = new byte[buf.position()];
        buf.flip();
        buf.get(out);
        return out;
    }

    /**
     * Writes {@code bytes} to {@code target} (a real path inside {@code root}) atomically: the parent is opened (and
     * made) from the root's handle without following links, a new temporary file is created in it and renamed over
     * the target within it (replacing a link there rather than following it). Keeps the permissions of an existing
     * file. The parent must not lie in one of {@code otherTeams}.
     */
    public static void writeAtomically(Path root, List<Path> otherTeams, Path target, byte[] bytes, String display)
            throws IOException {
        Path parent = target.getParent();
        if (parent == null || !parent.startsWith(root)) {
            throw new ToolError("workspace-containment", "path '" + display + "' is outside the workspace");
        }
        PathPolicy.refuseOtherTeams(parent, otherTeams, display);
        Path name = target.getFileName();
        try (SecureDirectoryStream<Path> dir = openOrCreateDirectory(root, parent, display)) {
            BasicFileAttributes a = attributes(dir, name);
            if (a != null && a.isDirectory()) {
                throw new ToolError("is-directory", "'" + display + "' is a directory");
            }
            Set<PosixFilePermission> perms = a != null && a.isRegularFile()
                    ? dir.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW).readAttributes()
                            .permissions()
                    : PosixFilePermissions.fromString("rw-r--r--");
            Path tmp = name.getFileSystem().getPath("." + name + "." + Long.toUnsignedString(RANDOM.nextLong())
                    + ".cohort-tmp");
            Set<OpenOption> create = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW);
            boolean moved = false;
            try {
                try (SeekableByteChannel ch = dir.newByteChannel(tmp, create,
                        PosixFilePermissions.asFileAttribute(Set.of(PosixFilePermission.OWNER_READ,
                                PosixFilePermission.OWNER_WRITE)))) {
                    ByteBuffer b = ByteBuffer.wrap(bytes);
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                }
                dir.getFileAttributeView(tmp, PosixFileAttributeView.class, NOFOLLOW).setPermissions(perms);
                dir.move(tmp, dir, name);
                moved = true;
            } finally {
                if (!moved) {
                    try {
                        dir.deleteFile(tmp);
                    } catch (IOException ignored) {
                        // not created, or already gone
                    }
                }
            }
        }
    }
}

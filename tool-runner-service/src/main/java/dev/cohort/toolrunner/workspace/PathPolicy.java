package dev.cohort.toolrunner.workspace;

import dev.cohort.toolrunner.ToolError;
import java.io.IOException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Path containment: every path a tool touches must resolve, with symlinks resolved, inside the containment root (the
 * team workspace, or the worktree the call runs in). Pure apart from reading the file system; unit-tested with a
 * table of escape vectors.
 *
 * <p>Resolution: the path is joined to the cwd and normalised lexically, then the deepest existing ancestor is
 * resolved to its real path (following every symlink on the way) and the not-yet-existing rest appended. The result
 * must start with the real containment root. A dangling symlink is refused: writing through it would create its
 * target wherever it points.
 */
public final class PathPolicy {
    /** Linux PATH_MAX: longer paths cannot be opened anyway; refusing early gives a clear message. */
    public static final int MAX_PATH_CHARS = 4096;
    /** Linux NAME_MAX for one component. */
    public static final int MAX_COMPONENT_CHARS = 255;

    private PathPolicy() {
    }

    /**
     * Resolves {@code userPath} (relative to {@code cwd}, or absolute) and checks it stays inside {@code root}.
     *
     * @param root real path of the containment root
     * @param cwd  directory relative paths start from; inside {@code root}
     * @return the real (symlink-free) absolute path; may not exist yet
     * @throws ToolError naming the rule that refused it
     */
    public static Path resolve(Path root, Path cwd, String userPath) {
        if (userPath == null || userPath.isBlank()) {
            throw new ToolError("bad-argument", "path is empty");
        }
        if (userPath.indexOf('\0') >= 0) {
            throw new ToolError("nul-byte", "path contains a NUL byte");
        }
        if (userPath.length() > MAX_PATH_CHARS) {
            throw new ToolError("path-too-long", "path is " + userPath.length() + " characters long; at most "
                    + MAX_PATH_CHARS + " are allowed");
        }
        for (String part : userPath.split("/")) {
            if (part.length() > MAX_COMPONENT_CHARS) {
                throw new ToolError("path-too-long", "a path component is " + part.length()
                        + " characters long; at most " + MAX_COMPONENT_CHARS + " are allowed");
            }
        }
        String p = userPath.startsWith("~") ? null : userPath;
        if (p == null) {
            throw new ToolError("workspace-containment", "path '" + userPath
                    + "' refers to a home directory; paths must stay inside the workspace");
        }
        Path candidate;
        try {
            candidate = cwd.resolve(p).normalize();
        } catch (InvalidPathException e) {
            throw new ToolError("bad-argument", "invalid path '" + userPath + "': " + e.getReason());
        }
        if (isSpecialFs(candidate)) {
            throw new ToolError("special-filesystem", "path '" + userPath
                    + "' is in /proc, /sys or /dev; those are never accessible to tools");
        }
        if (!candidate.startsWith(root)) {
            throw new ToolError("workspace-containment", "path '" + userPath + "' is outside the workspace "
                    + (Path.of(userPath).isAbsolute() ? "(absolute path)" : "('..' leaves it)"));
        }
        Path real = realOfDeepestExisting(candidate, userPath);
        if (!real.startsWith(root)) {
            throw new ToolError("symlink-escape", "path '" + userPath
                    + "' goes through a symbolic link that points outside the workspace");
        }
        return real;
    }

    /** As {@link #resolve} and additionally refuses devices, FIFOs and sockets (reading one could block or leak). */
    public static Path resolveForFileAccess(Path root, Path cwd, String userPath) {
        return resolveForFileAccess(root, cwd, userPath, List.of());
    }

    /**
     * As {@link #resolveForFileAccess(Path, Path, String)}, and refuses a path that resolves into one of
     * {@code otherTeams} (directories holding other teams' workspaces inside the root), before looking at the file.
     */
    public static Path resolveForFileAccess(Path root, Path cwd, String userPath, List<Path> otherTeams) {
        Path real = resolve(root, cwd, userPath);
        refuseOtherTeams(real, otherTeams, userPath);
        try {
            BasicFileAttributes a = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isOther()) {
                throw new ToolError("special-file", "'" + userPath
                        + "' is a device, FIFO or socket; only regular files and directories are accessible");
            }
        } catch (NoSuchFileException e) {
            // does not exist yet: fine for writes, the caller reports it for reads
        } catch (IOException e) {
            throw new ToolError("io-error", "cannot inspect '" + userPath + "': " + e.getMessage());
        }
        return real;
    }

    /**
     * Refuses {@code real} (a resolved, symlink-free path) when it is or lies in one of {@code otherTeams}: whatever
     * the spelling ({@code ..}, absolute, a symbolic link), the resolved path decides.
     *
     * @throws ToolError with rule {@code other-team-workspace}
     */
    public static void refuseOtherTeams(Path real, List<Path> otherTeams, String userPath) {
        for (Path o : otherTeams) {
            if (real.startsWith(o)) {
                throw new ToolError("other-team-workspace", "path '" + userPath + "' leads into another team's"
                        + " workspace (or the directory holding them); a team's tools reach only its own workspace");
            }
        }
    }

    /** Those of {@code dirs} that lie strictly inside {@code root}: the ones a path under the root can reach. */
    public static List<Path> inside(Path root, List<Path> dirs) {
        if (dirs.isEmpty()) {
            return List.of();
        }
        return dirs.stream().filter(d -> d.startsWith(root) && !d.equals(root)).toList();
    }

    private static boolean isSpecialFs(Path p) {
        return p.startsWith("/proc") || p.startsWith("/sys") || p.startsWith("/dev");
    }

    /** Real path of the deepest existing ancestor with the missing remainder appended. */
    private static Path realOfDeepestExisting(Path candidate, String userPath) {
        Path existing = candidate;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            throw new ToolError("workspace-containment", "path '" + userPath + "' has no existing ancestor");
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (NoSuchFileException e) {
            throw new ToolError("symlink-escape", "path '" + userPath
                    + "' goes through a dangling symbolic link; writing through it could create a file anywhere");
        } catch (IOException e) {
            throw new ToolError("io-error", "cannot resolve '" + userPath + "': " + e.getMessage());
        }
        if (isSpecialFs(real)) {
            throw new ToolError("special-filesystem", "path '" + userPath
                    + "' leads into /proc, /sys or /dev; those are never accessible to tools");
        }
        return real.resolve(existing.relativize(candidate));
    }
}

package dev.cohort.toolrunner.workspace;

import dev.cohort.toolrunner.sandbox.CommandSandbox;
import dev.cohort.toolrunner.ToolError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The workspace's settings directory, {@code .cohort/}: its {@code settings.json} names hooks that run on every tool
 * call of every agent of the team, so nothing a model issues may change it. Commands see it read-only (the sandbox
 * binds it so, {@link CommandSandbox}); the file tools refuse to write into it ({@link ToolContext#resolveForWrite});
 * people change it on disk or through the API.
 */
public final class ProtectedConfig {
    /** The directory's name; matched without regard to letter case (a case-insensitive file system would match). */
    public static final String DIR = ".cohort";

    private ProtectedConfig() {
    }

    /**
     * Refuses a write to {@code real} (a resolved, symlink-free path inside {@code root}) when any directory on its way
     * below the root is named {@code .cohort} in any letter case.
     *
     * @throws ToolError with rule {@code protected-config}
     */
    static void refuseWrite(Path root, Path real, String userPath) {
        if (!real.startsWith(root)) {
            return; // containment is checked (and refused) elsewhere
        }
        for (Path part : root.relativize(real)) {
            if (part.toString().toLowerCase(Locale.ROOT).equals(DIR)) {
                throw new ToolError("protected-config", "'" + userPath + "' is in the workspace's " + DIR
                        + "/ directory, which holds the team's settings and hooks; agents cannot change it. A person"
                        + " edits it directly or through Cohort's API");
            }
        }
    }

    /**
     * The workspace's {@code .cohort} directory, created (empty) when missing, so that every sandbox can bind it
     * read-only and no command can create it instead.
     *
     * @throws ToolError with rule {@code protected-config} when it exists but is not a directory (a symbolic link or
     *                   a file): its settings could then be redirected to files a command can write
     */
    public static Path ensure(Path workspace) {
        Path dir = workspace.resolve(DIR);
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return dir;
        }
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("protected-config", "the workspace's " + DIR + " is not a directory (a symbolic link"
                    + " or a file), so its settings could not be protected; nothing runs until a person replaces it"
                    + " with a directory");
        }
        try {
            Files.createDirectory(dir);
        } catch (IOException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new ToolError("protected-config", "cannot create the workspace's " + DIR + " directory: "
                        + e.getMessage());
            }
        }
        return dir;
    }
}

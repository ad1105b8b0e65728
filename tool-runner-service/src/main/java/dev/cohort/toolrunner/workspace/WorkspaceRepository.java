package dev.cohort.toolrunner.workspace;

import java.nio.file.Path;

/** Makes a team's workspace a git repository with a commit, so that worktrees can be made from it. */
public interface WorkspaceRepository {
    /** Initialises {@code ws} as a repository of its own (when it is not one) and commits once if it has no commit. */
    void ensure(String team, Path ws);
}

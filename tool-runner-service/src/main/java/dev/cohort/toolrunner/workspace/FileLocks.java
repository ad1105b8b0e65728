package dev.cohort.toolrunner.workspace;

import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serialises writes to one file (by real path) so concurrent agents never produce a torn or lost update:
 * {@code write_file} and the read-modify-write of {@code edit_file} hold the file's lock. Striped: a fixed set of
 * locks, so memory does not grow with the number of files.
 */
@ApplicationScoped
public class FileLocks {
    /** Enough stripes that unrelated files rarely share one; a shared stripe only costs a short wait. */
    private static final int STRIPES = 1024;
    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    public FileLocks() {
        for (int k = 0; k < STRIPES; k++) {
            locks[k] = new ReentrantLock();
        }
    }

    /** The lock of {@code realPath}. */
    public ReentrantLock of(Path realPath) {
        return locks[Math.floorMod(realPath.toString().hashCode(), STRIPES)];
    }
}

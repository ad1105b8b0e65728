package dev.cohort.toolrunner;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * The machine's processes by their argv as {@code /proc/<pid>/cmdline} shows it, argv[0] included. Tests mark the
 * processes they look for with {@code exec -a <marker>}; {@link ProcessHandle.Info#commandLine()} cannot see such a
 * marker, because it puts the executable's path in place of argv[0].
 */
public final class Processes {
    private Processes() {
    }

    /** {@code true} when some process's argv contains {@code marker}. */
    public static boolean anyWith(String marker) {
        File[] procs = new File("/proc").listFiles(f -> !f.getName().isEmpty()
                && f.getName().chars().allMatch(Character::isDigit));
        if (procs == null) {
            throw new IllegalStateException("no /proc: these tests need Linux");
        }
        for (File p : procs) {
            try {
                byte[] argv = Files.readAllBytes(p.toPath().resolve("cmdline"));
                if (new String(argv, StandardCharsets.UTF_8).replace('\0', ' ').contains(marker)) {
                    return true;
                }
            } catch (IOException e) {
                // the process ended while scanning
            }
        }
        return false;
    }
}

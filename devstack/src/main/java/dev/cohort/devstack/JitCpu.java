package dev.cohort.devstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU used by a JVM's JIT compiler threads ({@code C1/C2 CompilerThread*}), read from {@code /proc/<pid>/task}: the
 * benchmarks warm up until it is small ({@code --settle}), since a JVM still compiling takes a core's share from the
 * work being measured. Linux only; 0 where {@code /proc} cannot be read.
 */
public final class JitCpu {
    private JitCpu() {
    }

    /** The compiler threads' user + system time of process {@code pid}, in ms (USER_HZ = 100). */
    public static long ms(long pid) {
        long ticks = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
                    }
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return ticks * 10;
    }
}

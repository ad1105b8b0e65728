package dev.cohort.toolrunner.service;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The bubblewrap command prefix: the whole system read-only, a private /tmp, /dev and /proc, no network, a new PID
 * namespace (so killing bwrap kills everything inside), the runner's state directory hidden, and only the
 * containment root (workspace or worktree), the team's HOME and — for a worktree — the main repository's
 * {@code .git} writable. Pure.
 */
public final class Sandbox {
    private Sandbox() {
    }

    /**
     * @param bwrap     the bwrap binary
     * @param stateDir  the runner's state directory, hidden behind an empty tmpfs
     * @param writable  directories bound read-write, in order (later binds override earlier tmpfs)
     * @param readOnly  directories re-bound read-only after the state dir was hidden (e.g. nothing, or a workspace)
     * @param cwd       the command's working directory
     */
    public static List<String> bubblewrap(String bwrap, Path stateDir, List<Path> readOnly, List<Path> writable,
            Path cwd) {
        List<String> a = new ArrayList<>(List.of(bwrap,
                "--ro-bind", "/", "/",
                "--dev", "/dev",
                "--proc", "/proc",
                "--tmpfs", "/tmp",
                "--tmpfs", stateDir.toString()));
        for (Path p : readOnly) {
            a.addAll(List.of("--ro-bind", p.toString(), p.toString()));
        }
        for (Path p : writable) {
            a.addAll(List.of("--bind", p.toString(), p.toString()));
        }
        a.addAll(List.of("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--die-with-parent", "--chdir", cwd.toString(), "--"));
        return a;
    }
}

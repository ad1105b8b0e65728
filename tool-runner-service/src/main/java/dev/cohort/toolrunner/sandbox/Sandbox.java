package dev.cohort.toolrunner.sandbox;

import dev.cohort.toolrunner.process.ProcessRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The command prefix that puts one {@code bash} call in a sandbox. Pure.
 *
 * <p>Both kinds build the same view of the filesystem, from a {@link Layout}:
 * <ol>
 * <li>the whole system read-only; a minimal {@code /dev}; a {@code /proc} of a new PID namespace (no other process
 * is visible, so no {@code /proc/<pid>/environ} of a Cohort service can be read); a private, empty {@code /tmp}
 * and {@code /run} (no unix socket of the host, such as PostgreSQL's or Docker's, is reachable);</li>
 * <li>the {@linkplain Layout#hidden() hidden} directories (the user's home, the runner's and the CLI's state, the
 * directories holding other teams' workspaces) covered by empty tmpfs;</li>
 * <li>the {@linkplain Layout#writable() writable} directories (containment root, team {@code HOME}, a worktree's
 * main {@code .git}) bound read-write on top, so a workspace under the user's home stays reachable;</li>
 * <li>a hidden directory that lies inside a writable or read-only one (state inside the workspace, another team's
 * workspace inside team {@code default}'s) is covered again, the directories between them held in place;</li>
 * <li>a new network namespace (only loopback, not the host's) unless {@linkplain Layout#network() allowed}.</li>
 * </ol>
 * Killing the outer process kills everything inside (PID 1 of the namespace dies, {@code --die-with-parent} /
 * {@code --kill-child}).
 */
public final class Sandbox {
    /** Exit code of the {@code unshare} setup script when a mount failed (126/127 are the shell's). */
    public static final int SETUP_FAILED = ProcessRunner.SETUP_FAILED;

    private Sandbox() {
    }

    /**
     * What a call may see and touch.
     *
     * @param cwd      the command's working directory (inside a writable directory)
     * @param hidden   directories covered by an empty tmpfs (real paths; missing ones are left out by the caller)
     * @param writable directories bound read-write (real, existing paths)
     * @param readOnly files or directories bound read-only after the hiding (e.g. a resolv.conf that lives in /run)
     * @param network  {@code true}: share the host's network (the team's policy allows it)
     */
    public record Layout(Path cwd, List<Path> hidden, List<Path> writable, List<Path> readOnly, boolean network) {
        public Layout {
            Objects.requireNonNull(cwd, "cwd");
            hidden = List.copyOf(hidden);
            writable = List.copyOf(writable);
            readOnly = List.copyOf(readOnly);
        }
    }

    /** One mount over the read-only system, in order. */
    public record Mount(Kind kind, Path path) {
    }

    /**
     * A tmpfs (hides what is below), a bind of the same host path (read-write or read-only), or making an earlier
     * tmpfs read-only once the mount points inside it exist (a hidden directory is empty <em>and</em> unwritable).
     */
    public enum Kind {
        TMPFS, BIND, RO_BIND, REMOUNT_RO
    }

    private static final Path TMP = Path.of("/tmp");
    private static final Path RUN = Path.of("/run");

    /**
     * The mounts over the read-only system, in the order they must be made: later mounts win over earlier ones on
     * the same or an enclosing path, so hiding comes first, then the writable binds, then re-hiding what the binds
     * exposed, then the read-only binds and re-hiding what they exposed.
     */
    public static List<Mount> plan(Layout layout) {
        List<Mount> mounts = new ArrayList<>();
        mounts.add(new Mount(Kind.TMPFS, TMP));
        mounts.add(new Mount(Kind.TMPFS, RUN));
        List<Path> hidden = byDepth(layout.hidden());
        List<Path> writable = byDepth(layout.writable());
        List<Path> readOnly = layout.readOnly();
        for (Path h : hidden) {
            // one inside a directory bound below is hidden after that bind instead (covering it now would be undone)
            if (!h.equals(h.getRoot()) && !strictlyInside(h, writable) && !strictlyInside(h, readOnly)
                    && visible(mounts, h)) {
                mounts.add(new Mount(Kind.TMPFS, h));
            }
        }
        for (Path w : writable) {
            mounts.add(new Mount(Kind.BIND, w));
        }
        for (Path p : pins(hidden, writable)) {
            mounts.add(new Mount(Kind.BIND, p));
        }
        for (Path h : hidden) {
            // exposed again by a bind (state, or another team's workspace, inside the workspace); a directory that is
            // itself writable stays
            if (!h.equals(h.getRoot()) && strictlyInside(h, writable) && !writable.contains(h) && visible(mounts, h)) {
                hideAgain(mounts, h, writable, List.of());
            }
        }
        for (Path r : readOnly) {
            mounts.add(new Mount(Kind.RO_BIND, r));
        }
        for (Path h : hidden) {
            // exposed again by a read-only bind (a workspace bound read-only in plan mode)
            if (!h.equals(h.getRoot()) && !writable.contains(h) && !readOnly.contains(h) && visible(mounts, h)) {
                hideAgain(mounts, h, writable, readOnly);
            }
        }
        // a remount acts on the topmost mount of a path: never on a bind made at the same path (hidden = workspace)
        List<Path> tmpfs = mounts.stream().filter(m -> m.kind() == Kind.TMPFS && !m.path().equals(TMP))
                .map(Mount::path).filter(t -> !writable.contains(t) && !layout.readOnly().contains(t)).distinct()
                .toList();
        for (Path t : tmpfs) {
            mounts.add(new Mount(Kind.REMOUNT_RO, t));
        }
        return mounts;
    }

    /**
     * The directories between a writable directory and a hidden one inside it (another team's workspace below
     * {@code teams/} of the root, say), each to be bound onto itself before the hidden one is covered: a mount point
     * cannot be renamed or removed ({@code EBUSY}), so no command can move a directory above the hidden one aside and
     * find its content at a path that is not covered (a tmpfs moves along with the directory it is mounted on). All
     * of them come before any cover inside a writable directory, because a bind carries the host's content below it.
     * Read-only binds need none: nothing in them can be renamed.
     */
    static List<Path> pins(List<Path> hidden, List<Path> writable) {
        Set<Path> pins = new LinkedHashSet<>();
        for (Path h : hidden) {
            Path w = writable.stream().filter(d -> h.startsWith(d) && !h.equals(d))
                    .max(Comparator.comparingInt(Path::getNameCount)).orElse(null);
            if (w == null || writable.contains(h)) {
                continue;
            }
            for (int i = w.getNameCount() + 1; i < h.getNameCount(); i++) {
                Path between = h.getRoot().resolve(h.subpath(0, i));
                if (hidden.contains(between)) {
                    break; // covered itself, and a mount point once covered
                }
                if (!writable.contains(between)) {
                    pins.add(between);
                }
            }
        }
        return byDepth(List.copyOf(pins));
    }

    /** Covers {@code h}, which a bind exposed, again, and binds the directories inside it that must stay reachable. */
    private static void hideAgain(List<Mount> mounts, Path h, List<Path> writable, List<Path> readOnly) {
        mounts.add(new Mount(Kind.TMPFS, h));
        for (Path w : writable) {
            if (w.startsWith(h) && !w.equals(h)) {
                mounts.add(new Mount(Kind.BIND, w));
            }
        }
        for (Path r : readOnly) {
            if (r.startsWith(h) && !r.equals(h)) {
                mounts.add(new Mount(Kind.RO_BIND, r));
            }
        }
    }

    private static boolean strictlyInside(Path p, List<Path> dirs) {
        return dirs.stream().anyMatch(d -> p.startsWith(d) && !p.equals(d));
    }

    /** {@code true} when the host's content shows at {@code p}: the last mount on it or an enclosing path is a bind. */
    static boolean visible(List<Mount> mounts, Path p) {
        Mount last = null;
        for (Mount m : mounts) {
            if (p.startsWith(m.path())) {
                last = m;
            }
        }
        return last == null || last.kind() != Kind.TMPFS;
    }

    private static List<Path> byDepth(List<Path> paths) {
        return paths.stream().map(Path::normalize).distinct()
                .sorted(Comparator.comparingInt(Path::getNameCount).thenComparing(Path::toString)).toList();
    }

    /** The bubblewrap prefix (Debian package {@code bubblewrap}); bwrap resolves every source on the host. */
    public static List<String> bubblewrap(String bwrap, Layout layout) {
        List<String> a = new ArrayList<>(List.of(bwrap,
                "--ro-bind", "/", "/",
                "--dev", "/dev",
                "--proc", "/proc"));
        for (Mount m : plan(layout)) {
            String p = m.path().toString();
            switch (m.kind()) {
                case TMPFS -> a.addAll(List.of("--tmpfs", p));
                case BIND -> a.addAll(List.of("--bind", p, p));
                case RO_BIND -> a.addAll(List.of("--ro-bind", p, p));
                case REMOUNT_RO -> a.addAll(List.of("--remount-ro", p));
            }
        }
        // no capability inside: root in the sandbox could otherwise remount the system read-write
        a.addAll(List.of("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL"));
        if (!layout.network()) {
            a.add("--unshare-net");
        }
        a.addAll(List.of("--die-with-parent", "--chdir", layout.cwd().toString(), "--"));
        return a;
    }

    /**
     * The fallback built from util-linux {@code unshare} (always installed): new PID, mount, IPC, UTS and (unless
     * allowed) network namespaces; a {@code /bin/sh} script inside them builds the same view under {@code mountRoot}
     * (an empty directory of the runner, mounted over privately, so the host is never changed) and enters it
     * ({@code unshare --root --wd}) without any capability ({@code setpriv}). Costs a dozen {@code mount}
     * executions per call: slower than bubblewrap, which is preferred.
     *
     * @param unshare     the {@code unshare} binary, an absolute path (the command's PATH is its own)
     * @param setpriv     the util-linux {@code setpriv} binary (absolute), which drops every capability
     * @param mountRoot   an existing empty directory (in the runner's state, hidden inside)
     * @param submounts   other filesystems mounted below {@code /} (e.g. {@code /nix}), bound read-only
     * @param asRoot      the runner is root: a minimal {@code /dev} of copied device nodes; otherwise a user namespace
     *                    ({@code --map-root-user}), {@code /} bound recursively and the host's {@code /dev} (whose
     *                    devices root-in-a-user-namespace cannot open beyond the user's own rights)
     */
    public static List<String> unshare(String unshare, String setpriv, Path mountRoot, List<Path> submounts,
            boolean asRoot, Layout layout) {
        List<String> a = new ArrayList<>(List.of(unshare));
        if (!asRoot) {
            a.addAll(List.of("--user", "--map-root-user"));
        }
        a.addAll(List.of("--mount", "--propagation", "private", "--pid", "--fork", "--kill-child", "--ipc", "--uts"));
        if (!layout.network()) {
            a.add("--net");
        }
        a.addAll(List.of("/bin/sh", "-c", unshareScript(unshare, setpriv, mountRoot, submounts, asRoot, layout), "cohort-sandbox",
                layout.cwd().toString()));
        return a;
    }

    /** The setup script; {@code "$1"} is the cwd, the rest ({@code shell -c command}) is run inside. */
    static String unshareScript(String unshare, String setpriv, Path mountRoot, List<Path> submounts, boolean asRoot,
            Layout layout) {
        String r = q(mountRoot.toString());
        List<String> steps = new ArrayList<>();
        steps.add("R=" + r);
        steps.add("U=" + q(unshare));
        steps.add("S=" + q(setpriv));
        if (asRoot) {
            steps.add("mount --bind -o ro / \"$R\"");
            for (Path s : submounts) {
                steps.add("mount --bind -o ro " + q(s.toString()) + " \"$R\"" + q(s.toString()));
            }
        } else {
            // a user namespace may only bind / with its submounts (/dev included); they keep their own flags
            steps.add("mount --rbind -o ro / \"$R\"");
        }
        steps.add("mount -t proc -o nosuid,nodev,noexec proc \"$R/proc\"");
        if (asRoot) {
            steps.add("mount -t tmpfs -o nosuid,mode=755 tmpfs \"$R/dev\"");
            steps.add("cp -a /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/fd /dev/stdin"
                    + " /dev/stdout /dev/stderr /dev/ptmx \"$R/dev/\"");
            steps.add("mkdir \"$R/dev/shm\" \"$R/dev/pts\"");
        }
        for (Mount m : plan(layout)) {
            String p = q(m.path().toString());
            switch (m.kind()) {
                case TMPFS -> steps.add("mount -t tmpfs -o nosuid,nodev,mode=" + (m.path().equals(TMP) ? "1777" : "755")
                        + " tmpfs \"$R\"" + p);
                // the mount point exists unless an earlier tmpfs hid its parent: then it is made in that tmpfs
                case BIND -> steps.add("mkdir -p \"$R\"" + p + " && mount --bind " + p + " \"$R\"" + p);
                case RO_BIND -> steps.add("{ [ -d " + p + " ] && mkdir -p \"$R\"" + p + " || { mkdir -p \"$(dirname \"$R\"" + p
                        + ")\" && touch \"$R\"" + p + "; }; } && mount --bind -o ro " + p + " \"$R\"" + p);
                // a bind remount changes only this mount's flags (allowed in a user namespace, too)
                case REMOUNT_RO -> steps.add("mount -o remount,bind,ro \"$R\"" + p);
            }
        }
        String setup = String.join(" &&\n", steps);
        // the setup's tools are found on a fixed PATH; the command gets the PATH it was given
        return "P=\"$PATH\"; PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
                + "{ " + setup + "; } || { echo 'cohort sandbox: setting up the mounts failed' >&2; exit " + SETUP_FAILED
                + "; }\n"
                + "W=\"$1\"; shift; PATH=\"$P\"\n"
                // no capability inside (bounding set too): root in the sandbox could otherwise remount / read-write
                + "exec \"$U\" --root=\"$R\" --wd=\"$W\" \"$S\" --bounding-set=-all --inh-caps=-all --no-new-privs \"$@\"";
    }

    /** Single-quotes {@code s} for {@code /bin/sh}. */
    static String q(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}

package dev.cohort.toolrunner.process;

import io.quarkus.logging.Log;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Cgroups for commands: one per sandbox (a cold call's, or a warm sandbox's from its start), created with the
 * command's limits written into it <em>before</em> its first process joins, so nothing the command starts is ever
 * outside it. The sandbox's first process joins it itself ({@link Cgroup#join()}: a {@code /bin/sh} that writes its
 * own pid to {@code cgroup.procs} and execs the sandbox), since a process cannot be started inside a cgroup from Java.
 *
 * <p>Two kinds of hierarchy are used, each only where the runner can create cgroups in it (tried once at start-up,
 * {@link #detect}):
 * <ul>
 * <li>cgroups v2 (the unified hierarchy): {@code pids.max}, {@code memory.max} (with {@code memory.swap.max = 0} and
 * {@code memory.oom.group = 1}: the whole command is killed when it passes its memory), {@code cpu.max}. A cgroup with
 * processes cannot pass controllers to its children ("no internal processes"), so when the runner's own cgroup
 * holds only the runner, the runner moves itself into a leaf {@code cohort-runner-<pid>} first, as a service with a
 * delegated cgroup (systemd {@code Delegate=yes}) is meant to;</li>
 * <li>cgroups v1, only its {@code pids} controller, where v2 has none: the one limit that rlimits cannot give a root
 * runner ({@code RLIMIT_NPROC} does not apply to root).</li>
 * </ul>
 * The runner's cgroups live under {@code cohort-tool-runner-<pid>-<n>} next to its own; leftovers of a runner that died are
 * removed at the next start. A released cgroup is emptied (what is still in it is a leftover of a finished command:
 * killed) and removed off the caller's path.
 */
public final class CommandCgroups {
    /** Name prefix of the directory holding one runner's command cgroups: {@code cohort-tool-runner-<pid>-<n>-<random>}. */
    static final String PARENT_PREFIX = "cohort-tool-runner-";
    /** Tells apart the directories of several detections in one JVM (tests run the runner and their own). */
    private static final AtomicLong DETECTIONS = new AtomicLong();
    /** Name prefix of the leaf a runner moves itself into (cgroups v2). */
    static final String SELF_PREFIX = "cohort-runner-";
    /** The cgroups v2 controllers used. */
    static final List<String> V2_CONTROLLERS = List.of("pids", "memory", "cpu");
    /** {@code cpu.max} period, µs (the kernel's default). */
    public static final long CPU_PERIOD_MICROS = 100_000;
    /**
     * The join, run by {@code /bin/sh} as the sandbox's first process: {@code $1} directories follow, each gets this
     * shell's pid in its {@code cgroup.procs}; then it execs the rest (the sandbox). 125: set-up failed, as
     * {@link ProcessRunner#SETUP_FAILED}.
     */
    static final String JOIN = "n=$1; shift; while [ \"$n\" -gt 0 ]; do echo $$ > \"$1/cgroup.procs\" || exit "
            + ProcessRunner.SETUP_FAILED + "; shift; n=$((n - 1)); done; exec \"$@\"";
    /** Pauses between attempts to empty and remove a released cgroup, ms. */
    private static final long[] RELEASE_PAUSES_MS = {0, 50, 250, 1_000, 5_000, 30_000};

    /**
     * A hierarchy the runner creates command cgroups in.
     *
     * @param version     1 or 2
     * @param parent      this runner's directory in it ({@code cohort-tool-runner-<pid>-<n>}), created by {@link #detect}
     * @param controllers the controllers used in it
     */
    public record Hierarchy(int version, Path parent, Set<String> controllers) {
    }

    /**
     * What one command cgroup is limited to; {@code -1}: not limited by the cgroup.
     *
     * @param pidsMax        processes and threads
     * @param memoryMax      bytes of memory of all its processes together
     * @param cpuQuotaMicros CPU time per {@link #CPU_PERIOD_MICROS}
     */
    public record Settings(long pidsMax, long memoryMax, long cpuQuotaMicros) {
    }

    /** What start-up found: the hierarchies in use (empty: none) and, for the log and health data, what and why. */
    public record Detection(List<Hierarchy> hierarchies, String summary) {
    }

    private final List<Hierarchy> hierarchies;
    private final Settings settings;
    private final AtomicLong seq = new AtomicLong();
    private final Set<Cgroup> live = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cgroup-release");
        t.setDaemon(true);
        return t;
    });

    public CommandCgroups(List<Hierarchy> hierarchies, Settings settings) {
        this.hierarchies = List.copyOf(hierarchies);
        this.settings = settings;
    }

    public List<Hierarchy> hierarchies() {
        return hierarchies;
    }

    /** {@code true} when some hierarchy in use has {@code controller}. */
    public boolean has(String controller) {
        return hierarchies.stream().anyMatch(h -> h.controllers().contains(controller));
    }

    /** One command's cgroup: created, limited, not yet joined. */
    public final class Cgroup {
        private final List<Path> dirs;
        private final List<Path> left;

        private Cgroup(List<Path> dirs) {
            this.dirs = List.copyOf(dirs);
            this.left = new ArrayList<>(dirs);
        }

        List<Path> dirs() {
            return dirs;
        }

        /** The command prefix that puts the sandbox's first process (and so all it starts) into this cgroup. */
        public List<String> join() {
            List<String> a = new ArrayList<>(List.of("/bin/sh", "-c", JOIN, "cohort-cgroup", String.valueOf(dirs.size())));
            dirs.forEach(d -> a.add(d.toString()));
            return a;
        }

        /**
         * The command is over: whatever is still in the cgroup is killed and the cgroup removed, off the caller's
         * thread, retried while the kernel still counts dying processes in it. Idempotent.
         */
        public void release() {
            if (live.remove(this)) {
                attempt(this, 0);
            }
        }
    }

    /**
     * Creates the cgroup of one sandbox, its limits written, under this runner's directory of each hierarchy.
     *
     * @throws IOException when a directory or a limit cannot be written (what was created is removed)
     */
    public Cgroup create() throws IOException {
        String name = "s" + seq.incrementAndGet();
        List<Path> made = new ArrayList<>(hierarchies.size());
        try {
            for (Hierarchy h : hierarchies) {
                Path dir = h.parent().resolve(name);
                Files.createDirectory(dir);
                made.add(dir);
                write(h, dir, settings);
            }
        } catch (IOException | RuntimeException e) {
            for (Path d : made) {
                try {
                    Files.deleteIfExists(d);
                } catch (IOException ignored) {
                    // empty and just made: removed with the parent at the latest
                }
            }
            throw new IOException("cannot create the command's cgroup: " + e.getMessage(), e);
        }
        Cgroup cg = new Cgroup(made);
        live.add(cg);
        return cg;
    }

    /** Writes {@code s} into the cgroup {@code dir} of hierarchy {@code h}. */
    private static void write(Hierarchy h, Path dir, Settings s) throws IOException {
        if (h.controllers().contains("pids") && s.pidsMax() > 0) {
            writeFile(dir.resolve("pids.max"), Long.toString(s.pidsMax()));
        }
        if (h.version() == 2 && h.controllers().contains("memory") && s.memoryMax() > 0) {
            writeFile(dir.resolve("memory.max"), Long.toString(s.memoryMax()));
            // no swap beyond the limit (a hog would otherwise go on in swap), and one OOM kills the whole command
            if (Files.exists(dir.resolve("memory.swap.max"))) {
                writeFile(dir.resolve("memory.swap.max"), "0");
            }
            if (Files.exists(dir.resolve("memory.oom.group"))) {
                writeFile(dir.resolve("memory.oom.group"), "1");
            }
        }
        if (h.version() == 2 && h.controllers().contains("cpu") && s.cpuQuotaMicros() > 0) {
            writeFile(dir.resolve("cpu.max"), s.cpuQuotaMicros() + " " + CPU_PERIOD_MICROS);
        }
    }

    private void attempt(Cgroup cg, int round) {
        releaser.schedule(() -> {
            synchronized (cg) {
                for (var it = cg.left.iterator(); it.hasNext(); ) {
                    Path d = it.next();
                    if (remove(d)) {
                        it.remove();
                    }
                }
                if (cg.left.isEmpty()) {
                    return;
                }
            }
            if (round + 1 < RELEASE_PAUSES_MS.length) {
                attempt(cg, round + 1);
            } else {
                Log.warnf("command cgroup %s could not be removed: processes are still in it", cg.left);
            }
        }, RELEASE_PAUSES_MS[round], TimeUnit.MILLISECONDS);
    }

    /** Kills what is in cgroup {@code d} and removes it; {@code true} when it is gone. */
    public static boolean remove(Path d) {
        if (!Files.isDirectory(d)) {
            return true;
        }
        killMembers(d);
        try {
            Files.delete(d);
            return true;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            return false; // EBUSY: killed processes not reaped yet
        }
    }

    /** SIGKILL to every process in cgroup {@code d} ({@code cgroup.kill} where the kernel has it). */
    private static void killMembers(Path d) {
        Path kill = d.resolve("cgroup.kill");
        if (Files.exists(kill)) {
            try {
                writeFile(kill, "1");
                return;
            } catch (IOException e) {
                // fall back to the list
            }
        }
        for (long pid : members(d)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** The pids in cgroup {@code d} ({@code cgroup.procs}); empty when it cannot be read. */
    static List<Long> members(Path d) {
        List<Long> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(d.resolve("cgroup.procs"))) {
                if (!line.isBlank()) {
                    out.add(Long.parseLong(line.strip()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or unreadable: nothing to kill
        }
        return out;
    }

    /** Removes every live command cgroup and this runner's directories (shutdown). */
    public void close() {
        for (Cgroup cg : List.copyOf(live)) {
            live.remove(cg);
            cg.dirs().forEach(CommandCgroups::remove);
        }
        releaser.shutdownNow();
        for (Hierarchy h : hierarchies) {
            removeTree(h.parent());
        }
    }

    /** Removes {@code dir}'s child cgroups (killing what is in them), then {@code dir}. */
    private static void removeTree(Path dir) {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path c : children) {
                remove(c);
            }
        } catch (IOException e) {
            // gone
        }
        remove(dir);
    }

    // ---- detection, once at start-up

    /**
     * Finds where the runner can create command cgroups and prepares its directories there. Reads
     * {@code /proc/self/cgroup} and {@code /proc/self/mountinfo}; v2 for {@link #V2_CONTROLLERS}, v1 only for
     * {@code pids} and only when v2 has no {@code pids}. Never throws: what does not work is left out, and the summary
     * says why.
     */
    public static Detection detect(long pid) {
        String cgroupFile;
        String mountinfo;
        try {
            cgroupFile = Files.readString(Path.of("/proc/self/cgroup"));
            mountinfo = Files.readString(Path.of("/proc/self/mountinfo"));
        } catch (IOException e) {
            return new Detection(List.of(), "no cgroups: /proc/self/cgroup or mountinfo unreadable (" + e.getMessage() + ")");
        }
        List<Hierarchy> found = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Optional<Path> v2 = ownDir(cgroupFile, mountinfo, null);
        if (v2.isEmpty()) {
            notes.add("v2: not mounted");
        } else {
            setUpV2(v2.get(), pid, notes).ifPresent(found::add);
        }
        boolean pids = found.stream().anyMatch(h -> h.controllers().contains("pids"));
        if (!pids) {
            Optional<Path> v1 = ownDir(cgroupFile, mountinfo, "pids");
            if (v1.isEmpty()) {
                notes.add("v1 pids: not mounted");
            } else {
                setUpV1Pids(v1.get(), pid, notes).ifPresent(found::add);
            }
        }
        StringBuilder summary = new StringBuilder();
        for (Hierarchy h : found) {
            summary.append(summary.isEmpty() ? "" : "; ").append("v").append(h.version()).append(" ")
                    .append(h.controllers()).append(" at ").append(h.parent());
        }
        if (found.isEmpty()) {
            summary.append("none");
        }
        if (!notes.isEmpty()) {
            summary.append(" (").append(String.join("; ", notes)).append(")");
        }
        return new Detection(found, summary.toString());
    }

    /** The v2 set-up in the runner's cgroup {@code own}; empty (with a note) when it cannot be used. */
    private static Optional<Hierarchy> setUpV2(Path own, long pid, List<String> notes) {
        if (own.getFileName() != null && own.getFileName().toString().equals(SELF_PREFIX + pid)) {
            own = own.getParent(); // moved into its leaf by an earlier detection of this JVM
        }
        try {
            Set<String> available = words(readFile(own.resolve("cgroup.controllers")));
            Set<String> wanted = new LinkedHashSet<>(V2_CONTROLLERS);
            wanted.retainAll(available);
            if (wanted.isEmpty()) {
                notes.add("v2 at " + own + ": none of " + V2_CONTROLLERS + " available (" + available + ")");
                return Optional.empty();
            }
            removeStale(own);
            if (!enable(own, wanted)) {
                // "no internal processes": a cgroup with processes passes no controller down, so the runner moves
                // into a leaf of its own, but only when it is alone (another process's cgroup is not the runner's)
                List<Long> members = members(own);
                if (!members.equals(List.of(pid))) {
                    notes.add("v2 at " + own + ": cannot pass " + wanted + " down: the runner's cgroup holds other"
                            + " processes too (give the runner a delegated cgroup of its own, e.g. systemd Delegate=yes)");
                    return Optional.empty();
                }
                Path self = own.resolve(SELF_PREFIX + pid);
                Files.createDirectories(self);
                writeFile(self.resolve("cgroup.procs"), Long.toString(pid));
                if (!enable(own, wanted)) {
                    notes.add("v2 at " + own + ": cannot enable " + wanted + " for child cgroups");
                    return Optional.empty();
                }
            }
            Path parent = own.resolve(parentName(pid));
            Files.createDirectories(parent);
            if (!enable(parent, wanted)) {
                notes.add("v2 at " + parent + ": cannot enable " + wanted + " for child cgroups");
                remove(parent);
                return Optional.empty();
            }
            Hierarchy h = new Hierarchy(2, parent, wanted);
            probe(h);
            return Optional.of(h);
        } catch (IOException | RuntimeException e) {
            notes.add("v2 at " + own + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /** The v1 {@code pids} set-up in the runner's cgroup {@code own}; empty (with a note) when it cannot be used. */
    private static Optional<Hierarchy> setUpV1Pids(Path own, long pid, List<String> notes) {
        try {
            removeStale(own);
            Path parent = own.resolve(parentName(pid));
            Files.createDirectories(parent);
            Hierarchy h = new Hierarchy(1, parent, Set.of("pids"));
            probe(h);
            return Optional.of(h);
        } catch (IOException | RuntimeException e) {
            notes.add("v1 pids at " + own + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    private static String parentName(long pid) {
        // the counter is per class loader (a Quarkus test's application has its own): a random part keeps two apart
        return PARENT_PREFIX + pid + "-" + DETECTIONS.incrementAndGet() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
    }

    /** A child cgroup made, limited and removed: the runner can do what each command needs. */
    private static void probe(Hierarchy h) throws IOException {
        Path probe = h.parent().resolve("probe");
        Files.createDirectories(probe);
        try {
            write(h, probe, new Settings(64, 64L << 20, CPU_PERIOD_MICROS));
        } finally {
            remove(probe);
        }
    }

    /** Adds {@code controllers} to {@code dir}'s {@code cgroup.subtree_control}; {@code false} when refused. */
    private static boolean enable(Path dir, Set<String> controllers) throws IOException {
        Set<String> on = words(readFile(dir.resolve("cgroup.subtree_control")));
        if (on.containsAll(controllers)) {
            return true;
        }
        StringBuilder b = new StringBuilder();
        for (String c : controllers) {
            if (!on.contains(c)) {
                b.append(b.isEmpty() ? "" : " ").append('+').append(c);
            }
        }
        try {
            writeFile(dir.resolve("cgroup.subtree_control"), b.toString());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Removes the directories of runners that are gone ({@code cohort-tool-runner-<pid>-<n>}, {@code cohort-runner-<pid>}). */
    private static void removeStale(Path own) {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(own, Files::isDirectory)) {
            for (Path c : children) {
                String name = c.getFileName().toString();
                String prefix = name.startsWith(PARENT_PREFIX) ? PARENT_PREFIX
                        : name.startsWith(SELF_PREFIX) ? SELF_PREFIX : null;
                if (prefix == null) {
                    continue;
                }
                long other;
                try {
                    String rest = name.substring(prefix.length());
                    other = Long.parseLong(rest.contains("-") ? rest.substring(0, rest.indexOf('-')) : rest);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(other).map(ProcessHandle::isAlive).orElse(false)) {
                    continue; // another runner's, still running
                }
                if (prefix.equals(PARENT_PREFIX)) {
                    removeTree(c);
                } else if (members(c).isEmpty()) {
                    remove(c);
                }
            }
        } catch (IOException e) {
            // nothing to sweep
        }
    }

    /**
     * The directory of the runner's own cgroup: in the v2 hierarchy ({@code controller == null}) or in the v1
     * hierarchy of {@code controller}; empty when that hierarchy is not mounted here or the cgroup is not visible in
     * its mount. Pure: {@code cgroupFile} is {@code /proc/self/cgroup}, {@code mountinfo} {@code /proc/self/mountinfo}.
     */
    public static Optional<Path> ownDir(String cgroupFile, String mountinfo, String controller) {
        String path = null;
        for (String line : cgroupFile.split("\n")) {
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            boolean match = controller == null ? f[0].equals("0") && f[1].isEmpty()
                    : List.of(f[1].split(",")).contains(controller);
            if (match) {
                path = f[2].strip();
                break;
            }
        }
        if (path == null || !path.startsWith("/")) {
            return Optional.empty();
        }
        for (String line : mountinfo.split("\n")) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] left = line.substring(0, dash).split(" ");
            String[] right = line.substring(dash + 3).split(" ");
            if (left.length < 5 || right.length < 3) {
                continue;
            }
            boolean fits = controller == null ? right[0].equals("cgroup2")
                    : right[0].equals("cgroup") && List.of(right[2].split(",")).contains(controller);
            if (!fits) {
                continue;
            }
            String root = unescapeMountinfo(left[3]);
            String mountPoint = unescapeMountinfo(left[4]);
            String rel;
            if (root.equals("/")) {
                rel = path;
            } else if (path.equals(root) || path.startsWith(root + "/")) {
                rel = path.substring(root.length());
            } else {
                continue; // this mount does not show the runner's cgroup
            }
            Path dir = Path.of(mountPoint);
            for (String part : rel.split("/")) {
                if (!part.isEmpty()) {
                    dir = dir.resolve(part);
                }
            }
            return Optional.of(dir);
        }
        return Optional.empty();
    }

    private static Set<String> words(String s) {
        Set<String> out = new LinkedHashSet<>();
        for (String w : s.strip().split("\\s+")) {
            if (!w.isEmpty()) {
                out.add(w);
            }
        }
        return out;
    }

    private static String readFile(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.US_ASCII);
    }

    /** One {@code write(2)} of {@code value}, as the cgroup files want it (no truncation, no append). */
    static void writeFile(Path p, String value) throws IOException {
        try (var out = Files.newOutputStream(p, StandardOpenOption.WRITE)) {
            out.write(value.getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** mountinfo escapes space, tab, newline and backslash as octal ({@code \040}). */
    public static String unescapeMountinfo(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                try {
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                    i += 3;
                    continue;
                } catch (NumberFormatException e) {
                    // not an escape
                }
            }
            b.append(c);
        }
        return b.toString();
    }
}

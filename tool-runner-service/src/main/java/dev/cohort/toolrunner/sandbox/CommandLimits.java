package dev.cohort.toolrunner.sandbox;

import com.sun.management.OperatingSystemMXBean;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.CommandCgroups;
import dev.cohort.toolrunner.process.OutputCapture;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The limits of one command ({@code bash} calls, warm sandboxes, background jobs), decided once at start-up:
 * <ul>
 * <li><b>rlimits</b>, always: {@code prlimit} (util-linux) runs as the last step of the sandbox's command line, inside
 * it, right before the shell, so the limits hold for the command and everything it starts, and it cannot raise them
 * (no capability in the sandbox). Memory ({@code RLIMIT_DATA}), CPU time, file size, open files and core dumps (none).
 * Processes ({@code RLIMIT_NPROC}) only where that rlimit counts the command's own processes: the kernel counts it per
 * user id of a user namespace, so it is per command only in a sandbox with a user namespace of its own (a non-root
 * runner's bubblewrap or unshare, checked with a probe); it never applies to root, and without a user namespace it
 * would count every process of the runner's user.</li>
 * <li><b>cgroups</b>, where the runner can create them ({@link CommandCgroups}): processes ({@code pids.max}), memory
 * of the whole command and its CPU share (cgroups v2 only).</li>
 * <li><b>stored output</b>: the runner stores at most {@code output-size} characters of a command's output and kills
 * its process group past that ({@link OutputCapture#storeAtMost}).</li>
 * </ul>
 */
@ApplicationScoped
public class CommandLimits {
    /** A limit that is off. */
    public static final long UNLIMITED = -1;
    /** Extra seconds between {@code SIGXCPU} (the CPU time's soft limit) and {@code SIGKILL} (its hard limit). */
    static final long CPU_GRACE_SECONDS = 1;

    @Inject
    ToolRunnerConfig config;
    @Inject
    CommandSandbox sandbox;

    private volatile State state;

    /**
     * One command's limits, parsed and checked; {@link #UNLIMITED} where off.
     *
     * @param processes  processes and threads
     * @param memory     bytes
     * @param cpuSeconds CPU time of each process
     * @param cpus       CPUs the command may keep busy (cgroups v2)
     * @param fileSize   bytes of the largest file written
     * @param openFiles  open files of each process
     * @param outputSize characters of output stored
     */
    public record Values(long processes, long memory, long cpuSeconds, double cpus, long fileSize, long openFiles,
            long outputSize) {
    }

    /**
     * What is in force.
     *
     * @param values       the limits
     * @param prefix       the {@code prlimit} step (empty when no rlimit is set)
     * @param cgroups      where each command gets its cgroup; {@code null}: none
     * @param mechanism    how the limits are enforced, for the health data
     * @param processesHow how the process limit is enforced (or why it is not)
     */
    record State(Values values, List<String> prefix, CommandCgroups cgroups, String mechanism, String processesHow) {
    }

    void onStart(@Observes @Priority(20) StartupEvent ev) {
        if (config.role() == ToolRunnerConfig.Role.CONTROL) {
            return; // runs no command: each team's sandbox pod does
        }
        state();
    }

    void onStop(@Observes ShutdownEvent ev) {
        State s = state;
        if (s != null && s.cgroups() != null) {
            s.cgroups().close();
        }
    }

    /** The limits in force (decided once). */
    public Values values() {
        return state().values();
    }

    /** The step that sets the rlimits, to run inside the sandbox right before the shell; empty when none is set. */
    public List<String> prefix() {
        return state().prefix();
    }

    /** Where commands get their cgroups; {@code null} when cgroups are not used. */
    public CommandCgroups cgroups() {
        return state().cgroups();
    }

    /** How the limits are enforced: {@code cgroup v2 [...] + rlimits}, {@code cgroup v1 [pids] + rlimits}, {@code rlimits}. */
    public String mechanism() {
        return state().mechanism();
    }

    /** How the process limit is enforced, or why it is not. */
    public String processesEnforcement() {
        return state().processesHow();
    }

    private State state() {
        State s = state;
        if (s == null) {
            synchronized (this) {
                if (state == null) {
                    state = decide();
                }
                s = state;
            }
        }
        return s;
    }

    private State decide() {
        Values v = parse(config.limits(), physicalMemory(), Runtime.getRuntime().availableProcessors(),
                config.bash().outputCap());
        CommandCgroups cgroups = null;
        String found = "off (cohort.tool-runner.limits.cgroups=off)";
        if (config.limits().cgroups() == ToolRunnerConfig.CgroupUse.AUTO) {
            CommandCgroups.Detection d = CommandCgroups.detect(ProcessHandle.current().pid());
            found = d.summary();
            if (!d.hierarchies().isEmpty()) {
                cgroups = new CommandCgroups(d.hierarchies(), new CommandCgroups.Settings(v.processes(), v.memory(),
                        v.cpus() > 0 ? Math.max(1_000, Math.round(v.cpus() * CommandCgroups.CPU_PERIOD_MICROS)) : -1));
            }
        }
        boolean root = CommandSandbox.runningAsRoot();
        boolean nprocPerSandbox = v.processes() > 0 && !root && sandbox.level() != CommandSandbox.Level.NONE
                && ownUserNamespace();
        String processesHow;
        if (v.processes() <= 0) {
            processesHow = "unlimited";
        } else if (cgroups != null && cgroups.has("pids")) {
            processesHow = "cgroup pids.max" + (nprocPerSandbox ? " + RLIMIT_NPROC per sandbox" : "");
        } else if (nprocPerSandbox) {
            processesHow = "RLIMIT_NPROC per sandbox";
        } else {
            processesHow = "not enforced: " + (root ? "RLIMIT_NPROC does not apply to root"
                    : sandbox.level() == CommandSandbox.Level.NONE
                            ? "without a sandbox RLIMIT_NPROC would count every process of the runner's user"
                            : "the sandbox has no user namespace of its own, so RLIMIT_NPROC would count every process"
                                    + " of the runner's user")
                    + ", and no pids cgroup can be created";
            Log.warnf("limits: processes=%d is not enforced (%s); a fork bomb is stopped only by the call's timeout",
                    v.processes(), processesHow);
        }
        Map<String, Long> hard = ownHardLimits();
        String prlimit = CommandSandbox.onPath("prlimit");
        List<String> prefix = rlimitPrefix(prlimit, v, nprocPerSandbox, hard);
        if (!prefix.isEmpty() && !Files.isExecutable(Path.of(prlimit))) {
            throw new IllegalStateException("the command limits need prlimit (util-linux), which is not on PATH: install"
                    + " util-linux, or set every cohort.tool-runner.limits.* to unlimited");
        }
        String mechanism = cgroups == null ? "rlimits"
                : String.join(" + ", cgroups.hierarchies().stream()
                        .map(h -> "cgroup v" + h.version() + " " + h.controllers()).toList()) + " + rlimits";
        Log.infof("limits: %s; processes %s (%s), memory %s per process%s, cpu time %s per process, cpus %s, file size"
                        + " %s, open files %s, stored output %s characters; cgroups: %s",
                mechanism, show(v.processes()), processesHow, size(v.memory()),
                cgroups != null && cgroups.has("memory") ? " and per command" : "",
                v.cpuSeconds() < 0 ? "unlimited" : Duration.ofSeconds(v.cpuSeconds()).toString().substring(2).toLowerCase(Locale.ROOT),
                v.cpus() < 0 ? "unlimited" : cgroups != null && cgroups.has("cpu") ? String.format(Locale.ROOT, "%.2f", v.cpus())
                        : "not limited (no cgroup v2 cpu controller)",
                size(v.fileSize()), show(v.openFiles()), size(v.outputSize()), found);
        return new State(v, prefix, cgroups, mechanism, processesHow);
    }

    /** The error of a command killed because its output passed {@code limits.output-size}. */
    public static String outputLimitError(long stored) {
        return "the command's output passed the limit of " + stored + " characters (limits.output-size): the rest was"
                + " not stored and the command's whole process group was killed (rule: output-limit). Write big output"
                + " to a file and read parts of it, or filter it (head, grep)";
    }

    // ---- parsing and checking (pure)

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern PERCENT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*%");
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?");

    /**
     * The limits of {@code c}, checked.
     *
     * @param physicalMemory bytes of memory of the machine (what {@code 50%} is a share of)
     * @param machineCpus    CPUs of the machine
     * @param outputCap      {@code bash.output-cap}: the stored output must hold at least what a result shows
     * @throws IllegalStateException naming the key, the value and what would be accepted
     */
    static Values parse(ToolRunnerConfig.Limits c, long physicalMemory, int machineCpus, int outputCap) {
        long processes = count("processes", c.processes(), 8);
        long memory = size("memory", c.memory(), physicalMemory, 16L << 20, true);
        long cpuSeconds = seconds("cpu-time", c.cpuTime());
        double cpus = cpus("cpus", c.cpus(), machineCpus);
        long fileSize = size("file-size", c.fileSize(), physicalMemory, 1L << 20, false);
        long openFiles = count("open-files", c.openFiles(), 16);
        long outputSize = size("output-size", c.outputSize(), physicalMemory, 1L << 16, false);
        if (outputSize > 0 && outputSize < outputCap) {
            throw invalid("output-size", c.outputSize(), "at least bash.output-cap (" + outputCap
                    + " characters): the stored output must hold what a result shows");
        }
        return new Values(processes, memory, cpuSeconds, cpus, fileSize, openFiles, outputSize);
    }

    private static IllegalStateException invalid(String key, String value, String expected) {
        return new IllegalStateException("cohort.tool-runner.limits." + key + "=" + value + " is not a valid limit: "
                + expected + ", or unlimited");
    }

    private static boolean unlimited(String v) {
        return v.strip().equalsIgnoreCase("unlimited");
    }

    static long count(String key, String value, long min) {
        if (unlimited(value)) {
            return UNLIMITED;
        }
        String v = value.strip();
        if (!v.matches("\\d{1,9}")) {
            throw invalid(key, value, "expected a whole number of at least " + min);
        }
        long n = Long.parseLong(v);
        if (n < min) {
            throw invalid(key, value, "expected at least " + min + " (the sandbox and the shell need some)");
        }
        return n;
    }

    static long size(String key, String value, long physicalMemory, long min, boolean shareAllowed) {
        if (unlimited(value)) {
            return UNLIMITED;
        }
        String v = value.strip();
        String expected = "expected a size such as 512m or 4g" + (shareAllowed ? ", a share of the machine's memory"
                + " such as 50%" : "") + ", of at least " + size(min);
        long bytes;
        Matcher pct = PERCENT.matcher(v);
        Matcher m = SIZE.matcher(v);
        if (shareAllowed && pct.matches()) {
            double p = Double.parseDouble(pct.group(1));
            if (p <= 0 || p > 100) {
                throw invalid(key, value, "a share must be above 0% and at most 100%");
            }
            bytes = (long) (physicalMemory * (p / 100));
        } else if (m.matches() && m.group(1).length() <= 15) {
            int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                case "g" -> 30;
                case "t" -> 40;
                default -> 0;
            };
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw invalid(key, value, expected);
            }
            bytes = n << shift;
        } else {
            throw invalid(key, value, expected);
        }
        if (bytes < min) {
            throw invalid(key, value, expected);
        }
        return bytes;
    }

    static long seconds(String key, String value) {
        if (unlimited(value)) {
            return UNLIMITED;
        }
        String v = value.strip();
        Duration d;
        try {
            d = v.matches("\\d+") ? Duration.ofSeconds(Long.parseLong(v))
                    : v.toUpperCase(Locale.ROOT).startsWith("P") ? Duration.parse(v)
                    : v.matches("\\d+[smhdSMHD]") ? switch (Character.toLowerCase(v.charAt(v.length() - 1))) {
                        case 's' -> Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
                        case 'm' -> Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
                        case 'h' -> Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
                        default -> Duration.ofDays(Long.parseLong(v.substring(0, v.length() - 1)));
                    } : null;
        } catch (RuntimeException e) {
            d = null;
        }
        if (d == null || d.toSeconds() < 1) {
            throw invalid(key, value, "expected a duration of at least 1 s such as 90s, 30m or 4h");
        }
        return d.toSeconds();
    }

    static double cpus(String key, String value, int machineCpus) {
        if (unlimited(value)) {
            return UNLIMITED;
        }
        String v = value.strip();
        Matcher pct = PERCENT.matcher(v);
        double cpus;
        if (pct.matches()) {
            double p = Double.parseDouble(pct.group(1));
            if (p <= 0 || p > 100) {
                throw invalid(key, value, "a share must be above 0% and at most 100%");
            }
            cpus = machineCpus * p / 100;
        } else if (NUMBER.matcher(v).matches()) {
            cpus = Double.parseDouble(v);
        } else {
            throw invalid(key, value, "expected a number of CPUs such as 1.5, or a share of the machine's such as 80%");
        }
        if (cpus < 0.01) {
            throw invalid(key, value, "expected at least 0.01 CPUs");
        }
        return cpus;
    }

    /**
     * The {@code prlimit} step for {@code v} (pure): each rlimit as soft and hard limit, lowered to the runner's own
     * hard limit where that is lower (nothing but root can raise a hard limit); empty when no rlimit is set.
     *
     * @param nproc set {@code RLIMIT_NPROC} (only where it counts per sandbox)
     * @param hard  the runner's hard limits by {@code prlimit} name ({@code nproc}, {@code data}, ...), absent =
     *              unlimited
     */
    static List<String> rlimitPrefix(String prlimit, Values v, boolean nproc, Map<String, Long> hard) {
        List<String> a = new ArrayList<>();
        a.add(prlimit);
        if (nproc && v.processes() > 0) {
            a.add("--nproc=" + clamp(v.processes(), hard.get("nproc")));
        }
        if (v.memory() > 0) {
            a.add("--data=" + clamp(v.memory(), hard.get("data")));
        }
        if (v.cpuSeconds() > 0) {
            long h = clamp(v.cpuSeconds() + CPU_GRACE_SECONDS, hard.get("cpu"));
            a.add("--cpu=" + Math.min(v.cpuSeconds(), h) + ":" + h);
        }
        if (v.fileSize() > 0) {
            a.add("--fsize=" + clamp(v.fileSize(), hard.get("fsize")));
        }
        if (v.openFiles() > 0) {
            a.add("--nofile=" + clamp(v.openFiles(), hard.get("nofile")));
        }
        a.add("--core=0");
        a.add("--");
        return a;
    }

    private static long clamp(long value, Long hard) {
        return hard == null || hard < 0 ? value : Math.min(value, hard);
    }

    /** The runner's own hard limits ({@code /proc/self/limits}) by {@code prlimit} name; unlimited ones are absent. */
    static Map<String, Long> ownHardLimits() {
        Map<String, String> names = Map.of("Max cpu time", "cpu", "Max file size", "fsize", "Max data size", "data",
                "Max processes", "nproc", "Max open files", "nofile", "Max core file size", "core");
        Map<String, Long> out = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII)) {
                for (Map.Entry<String, String> e : names.entrySet()) {
                    if (line.startsWith(e.getKey() + " ")) {
                        String[] f = line.substring(e.getKey().length()).strip().split("\\s+");
                        if (f.length >= 2 && f[1].matches("\\d+")) {
                            out.put(e.getValue(), Long.parseLong(f[1]));
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: nothing is lowered, and prlimit says what it cannot set
        }
        return out;
    }

    /**
     * {@code true} when the sandbox's processes are in a user namespace of their own, so that {@code RLIMIT_NPROC} set
     * inside counts only that namespace's processes: the kernel counts the limit per user of each user namespace (and
     * checks the parent's count against the runner's own limit). A non-root runner's sandbox has one: bubblewrap not
     * installed setuid always makes one, the unshare fallback asks for it ({@code --user}). A setuid bubblewrap does not.
     */
    private boolean ownUserNamespace() {
        return switch (sandbox.level()) {
            case UNSHARE -> true;
            case BUBBLEWRAP -> !setuid(CommandSandbox.onPath(config.bwrapPath()));
            case NONE -> false;
        };
    }

    private static boolean setuid(String binary) {
        try {
            Object mode = Files.getAttribute(Path.of(binary), "unix:mode");
            return mode instanceof Integer m && (m & 04000) != 0;
        } catch (IOException | RuntimeException e) {
            return true; // unknown: assume the worst (RLIMIT_NPROC would count every process of the user)
        }
    }

    private static long physicalMemory() {
        try {
            var os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof OperatingSystemMXBean sun) {
                return sun.getTotalMemorySize();
            }
        } catch (RuntimeException e) {
            // fall through
        }
        return 8L << 30;
    }

    private static String show(long n) {
        return n < 0 ? "unlimited" : Long.toString(n);
    }

    /** {@code bytes} as the largest whole unit ({@code 4g}, {@code 512m}), or {@code unlimited}. */
    static String size(long bytes) {
        if (bytes < 0) {
            return "unlimited";
        }
        if (bytes >= 1L << 30 && bytes % (1L << 30) != 0) {
            return String.format(Locale.ROOT, "%.1fg", bytes / (double) (1L << 30)); // a share of the machine's memory
        }
        String[] units = {"", "k", "m", "g", "t"};
        int u = 0;
        long n = bytes;
        while (u < units.length - 1 && n >= 1024 && n % 1024 == 0) {
            n /= 1024;
            u++;
        }
        return n + units[u];
    }
}

package dev.cohort.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The CPU time and memory of {@code cohort up}'s processes, read from {@code /proc}: each service JVM, what each one
 * started (the tool runner's sandboxes and their commands), PostgreSQL, and the JVM that runs {@code cohort up} (the
 * broker and the model). For the benchmarks; Linux only.
 */
final class ProcTree {

    static final String SANDBOXES = "tool runner's sandboxes and commands";
    static final String THIS_JVM = "cohort up's JVM (broker, model, bench)";
    static final String POSTGRES = "PostgreSQL";
    static final String REAPED_BY_INIT = "reaped by PID 1";

    private ProcTree() {
    }

    /** One process: its parent, command name and CPU ticks (own: utime + stime; reaped children: cutime + cstime). */
    record Proc(long pid, long ppid, String comm, long own, long children) {
    }

    /** Every process visible now. */
    static Map<Long, Proc> snapshot() {
        Map<Long, Proc> all = new HashMap<>();
        try (Stream<Path> dirs = Files.list(Path.of("/proc"))) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                Proc p = read(Long.parseLong(d.getFileName().toString()));
                if (p != null) {
                    all.put(p.pid(), p);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc: " + e, e);
        }
        return all;
    }

    /** One process from {@code /proc/PID/stat}; null when it is gone. */
    static Proc read(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            String[] f = stat.substring(close + 2).split(" ");
            return new Proc(pid, Long.parseLong(f[1]), stat.substring(open + 1, close),
                    Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14]));
        } catch (IOException | RuntimeException gone) {
            return null; // the process ended while it was read
        }
    }

    /**
     * Which group a process's CPU counts in: a service by its name, a process a service started (at any depth) in that
     * service's commands ({@link #SANDBOXES} for the tool runner's), PostgreSQL, this JVM; null for the rest.
     */
    static String group(Proc p, Map<Long, Proc> all, Map<Long, String> services) {
        long self = ProcessHandle.current().pid();
        if (services.containsKey(p.pid())) {
            return services.get(p.pid());
        }
        if (p.comm().startsWith("postgres")) {
            return POSTGRES; // the devstack's server runs in a session of its own (its parent is PID 1)
        }
        if (p.pid() == self) {
            return THIS_JVM;
        }
        Proc q = p;
        for (int depth = 0; depth < 64 && q != null; depth++) {
            Proc parent = all.get(q.ppid());
            if (parent == null) {
                return null;
            }
            if (services.containsKey(parent.pid())) {
                return commandsOf(services.get(parent.pid()));
            }
            if (parent.pid() == self) {
                return "cohort up's " + p.comm();
            }
            q = parent;
        }
        return null;
    }

    static String commandsOf(String service) {
        return service.startsWith("tool-runner-service") ? SANDBOXES : service + "'s commands";
    }

    /**
     * CPU ticks (1/100 s) used so far by each group: a service's own; every other member's own and reaped children's; a
     * service's reaped children in its commands; the orphans PID 1 reaped.
     */
    static Map<String, Long> cpuByGroup(Map<String, Long> servicePids) {
        Map<Long, String> services = new HashMap<>();
        servicePids.forEach((name, pid) -> services.put(pid, name));
        Map<Long, Proc> all = snapshot();
        Map<String, Long> out = new LinkedHashMap<>();
        for (Proc p : all.values()) {
            String g = group(p, all, services);
            if (g == null) {
                continue;
            }
            if (services.containsKey(p.pid())) {
                out.merge(g, p.own(), Long::sum);
                out.merge(commandsOf(g), p.children(), Long::sum);
            } else {
                out.merge(g, p.own() + p.children(), Long::sum);
            }
        }
        Proc init = all.get(1L);
        out.put(REAPED_BY_INIT, init == null ? 0 : init.children());
        return out;
    }

    /** The command line (at most 100 characters) of each process now in {@code group}, by PID. */
    static Map<Long, String> commandsIn(String group, Map<String, Long> servicePids) {
        Map<Long, String> services = new HashMap<>();
        servicePids.forEach((name, pid) -> services.put(pid, name));
        Map<Long, Proc> all = snapshot();
        Map<Long, String> out = new HashMap<>();
        for (Proc p : all.values()) {
            if (group.equals(group(p, all, services))) {
                try {
                    String cmd = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).replace('\0', ' ').strip();
                    out.put(p.pid(), cmd.length() > 100 ? cmd.substring(0, 100) : cmd);
                } catch (IOException | RuntimeException gone) {
                    // ended
                }
            }
        }
        return out;
    }

    /** The machine's busy ticks since boot, and of them the kernel's (system, irq, softirq), from {@code /proc/stat}. */
    static long[] machine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(f[i]);
            }
            return new long[] {busy, Long.parseLong(f[3]) + Long.parseLong(f[6]) + Long.parseLong(f[7])};
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read /proc/stat: " + e, e);
        }
    }

    /** A group's memory: heap used after a full GC (KB; -1 when not a JVM) and resident memory (RSS of a JVM, else PSS). */
    record Memory(long heapUsedKb, long residentKb) {
    }

    /**
     * Each service's heap after a full GC and its RSS, and the PSS of the tool runner's sandboxes and of PostgreSQL
     * (shared pages split between the processes that map them, so a sum over many processes does not count them twice).
     */
    static Map<String, Memory> memory(Map<String, Long> servicePids) throws IOException, InterruptedException {
        Map<String, Memory> out = new LinkedHashMap<>();
        for (var e : servicePids.entrySet()) {
            out.put(e.getKey(), new Memory(heapAfterGcKb(e.getValue()), statusKb(e.getValue(), "VmRSS")));
        }
        Map<Long, String> services = new HashMap<>();
        servicePids.forEach((name, pid) -> services.put(pid, name));
        Map<Long, Proc> all = snapshot();
        long sandboxes = 0;
        long postgres = 0;
        for (Proc p : all.values()) {
            String g = group(p, all, services);
            if (SANDBOXES.equals(g)) {
                sandboxes += pssKb(p.pid());
            } else if (POSTGRES.equals(g)) {
                postgres += pssKb(p.pid());
            }
        }
        out.put(SANDBOXES, new Memory(-1, sandboxes));
        out.put(POSTGRES, new Memory(-1, postgres));
        return out;
    }

    private static final Pattern USED = Pattern.compile("used (\\d+)K");

    /** {@code jcmd GC.run}, then the generations' "used" from {@code GC.heap_info}, KB. */
    static long heapAfterGcKb(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        String info = jcmd(pid, "GC.heap_info");
        long used = 0;
        for (String line : info.lines().toList()) {
            // the heap's lines ("DefNew total …, used …K", "Tenured …", "garbage-first heap …"), not Metaspace's
            if (!line.startsWith(" ") && !line.contains("Metaspace") && !line.contains("class space")) {
                Matcher m = USED.matcher(line);
                if (m.find()) {
                    used += Long.parseLong(m.group(1));
                }
            }
        }
        return used;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(List.of(jcmd.toString(), Long.toString(pid), command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("jcmd " + pid + " " + command + ": " + out);
        }
        return out;
    }

    static long statusKb(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException gone) {
            // ended
        }
        return 0;
    }

    static long pssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.substring(4).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException gone) {
            // ended, or not ours to read
        }
        return 0;
    }
}

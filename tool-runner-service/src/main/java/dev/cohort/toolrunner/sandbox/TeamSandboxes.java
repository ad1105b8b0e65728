package dev.cohort.toolrunner.sandbox;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.CommandCgroups;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.ToolError;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Team sandboxes: a team's commands run inside a sandbox that was built <em>once</em>, when the team's first command
 * of that view arrived, instead of a new one per call.
 *
 * <p>A team sandbox is a long-lived holder process, {@code /bin/bash} waiting on its stdin, started inside exactly the
 * sandbox a call of that team and place would get ({@link CommandSandbox#warmKey}: bubblewrap or the {@code unshare}
 * fallback, same binds, hidden directories, network policy, no capability). A call enters the holder's namespaces
 * (mount and root, PID, IPC, UTS, network, cgroup, and user where there is one) with util-linux {@code nsenter}, drops
 * every capability and sets no-new-privileges with {@code setpriv}, changes to its cwd <em>inside</em> (never a
 * directory opened outside, which would leave the command a way out of the sandbox's root), takes its rlimits and
 * execs the shell. Entering namespaces costs a few system calls; building them (a dozen mounts, and their teardown)
 * was most of a call's CPU.
 *
 * <p>A team has one sandbox per view it uses: its workspace read-write, its workspace read-only (plan mode), each
 * worktree. The view is the key: another team, another view or a changed set of hidden directories (a new team)
 * gives another sandbox. A sandbox whose bound directories were replaced since it started (another inode) is retired
 * and a new one started. A sandbox unused for {@code sandbox-idle-timeout} (no call or background job in it) is
 * stopped; the workspace stays on disk and the next call starts the sandbox again.
 *
 * <p>Within a sandbox, calls of the same team share {@code /tmp} and see each other's processes, as on one machine.
 * What a call leaves behind outside its process group (a daemon that called {@code setsid}) is re-parented to the
 * sandbox's init and killed when a call of the sandbox ends; background jobs are the way to keep work running. The
 * process limit ({@code pids}) counts for the whole team sandbox. The holder's environment is empty but for
 * {@code PATH}; it holds no credential. A holder that dies (killed, or the sandbox's init killed) takes every process of the sandbox with it: the call in flight
 * ends with the error {@code sandbox-stopped} (its command may have partly run; it is never run again) and the next
 * call starts a new sandbox.
 */
@ApplicationScoped
public class TeamSandboxes {
    /** Written by the holder once it runs inside the sandbox. */
    static final int READY = 0x06;
    /** The holder's {@code $0}: how it is told apart from the sandbox's own processes. */
    static final String HOLDER_NAME = "cohort-team-sandbox";
    /**
     * The holder: says it is ready, then waits for the end of its stdin (the runner closes it, or dies). As the init of
     * its PID namespace (the {@code unshare} fallback) bash also reaps the orphans re-parented to it.
     */
    private static final String HOLDER = "printf '\\006'; exec 1>/dev/null 2>&1; while read -r _; do :; done";
    private static final long START_SECONDS = 30;

    @Inject
    ToolRunnerConfig config;
    @Inject
    CommandSandbox sandbox;
    @Inject
    CommandLimits limits;

    private final Map<WarmSandboxes.Key, Holder> holders = new HashMap<>();
    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "team-sandbox-reaper");
        t.setDaemon(true);
        return t;
    });
    /** The one thread that starts holders; it never ends while the runner runs. */
    private final ExecutorService starter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "team-sandbox-starter");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean reaperStarted;
    private volatile ToolRunnerConfig.SandboxScope scope;
    private volatile Duration idleTimeout;
    private volatile String nsenter;
    private volatile String setpriv;
    private volatile String env;

    /** {@code true} when commands run in team sandboxes (a sandbox is in force and the scope is {@code team}). */
    public boolean enabled() {
        ToolRunnerConfig.SandboxScope s = scope;
        return (s != null ? s : config.sandboxScope()) == ToolRunnerConfig.SandboxScope.TEAM
                && sandbox.level() != CommandSandbox.Level.NONE;
    }

    /** Overrides {@code sandbox-scope} ({@code null}: as configured); a seam for the tests of the per-call sandbox. */
    public void scope(ToolRunnerConfig.SandboxScope s) {
        scope = s;
    }

    /**
     * A lease on the sandbox of {@code key}, started if there is none (or the one there died or its binds changed).
     * The caller runs its command with {@link Lease#prefix} and closes the lease when the command is over.
     *
     * @throws ToolError {@code sandbox-start} when the sandbox cannot be started
     */
    public Lease lease(WarmSandboxes.Key key) {
        startReaper();
        Holder h;
        synchronized (holders) {
            h = holders.get(key);
            if (h != null && !h.usable()) {
                holders.remove(key);
                h.retire(h.process.isAlive() ? "its bound directories were replaced" : "it had stopped");
                h = null;
            }
            if (h == null) {
                h = new Holder(key);
                holders.put(key, h);
            }
            h.leases++;
            h.lastUsed = System.nanoTime();
        }
        try {
            h.awaitStarted();
        } catch (RuntimeException e) {
            synchronized (holders) {
                h.leases--;
                holders.remove(key, h);
            }
            throw e;
        }
        return new Lease(h);
    }

    /** The sandboxes running now (tests, health). */
    public int running() {
        synchronized (holders) {
            return (int) holders.values().stream().filter(h -> h.process != null && h.process.isAlive()).count();
        }
    }

    /** The holder pids of {@code team}'s running sandboxes (tests: kill one mid-call). */
    public List<Long> holderPids(String team) {
        synchronized (holders) {
            return holders.values().stream().filter(h -> h.key.team().equals(team) && h.holderPid > 0)
                    .map(h -> h.holderPid).toList();
        }
    }

    /** Stops every sandbox of {@code team} that is not in use (tests: the next call starts it again). */
    public int stopIdle(String team) {
        List<Holder> out = new ArrayList<>();
        synchronized (holders) {
            holders.values().removeIf(h -> {
                if (h.key.team().equals(team) && h.leases == 0) {
                    out.add(h);
                    return true;
                }
                return false;
            });
        }
        out.forEach(h -> h.stop("stopped on request"));
        return out.size();
    }

    private void startReaper() {
        if (reaperStarted) {
            return;
        }
        synchronized (this) {
            if (reaperStarted) {
                return;
            }
            long idle = config.sandboxIdleTimeout().toMillis();
            long every = Math.max(200, Math.min(30_000, idle / 2));
            reaper.scheduleWithFixedDelay(this::stopIdle, every, every, TimeUnit.MILLISECONDS);
            reaperStarted = true;
        }
    }

    /** Overrides {@code sandbox-idle-timeout} ({@code null}: as configured); a seam for tests. */
    void idleTimeout(Duration d) {
        idleTimeout = d;
    }

    private Duration idleTimeout() {
        Duration d = idleTimeout;
        return d != null ? d : config.sandboxIdleTimeout();
    }

    /** Stops the sandboxes unused for the idle timeout (run every half timeout, at most every 30 s). */
    void stopIdle() {
        long idle = idleTimeout().toNanos();
        long now = System.nanoTime();
        List<Holder> out = new ArrayList<>();
        synchronized (holders) {
            holders.values().removeIf(h -> {
                if (h.leases == 0 && now - h.lastUsed >= idle) {
                    out.add(h);
                    return true;
                }
                return false;
            });
        }
        out.forEach(h -> h.stop("idle for " + idleTimeout()));
    }

    /** At shutdown, before the cgroups go: the sandboxes are stopped, not lost. */
    void onStop(@Observes @Priority(10) ShutdownEvent ev) {
        close();
    }

    @PreDestroy
    void close() {
        reaper.shutdownNow();
        List<Holder> all;
        synchronized (holders) {
            all = new ArrayList<>(holders.values());
            holders.clear();
        }
        all.forEach(h -> h.stop("the runner stops"));
        starter.shutdown();
    }

    private String tool(String name) {
        String found = CommandSandbox.onPath(name);
        if (!found.contains("/")) {
            throw new ToolError("sandbox-start", "cannot run commands in the team sandbox: '" + name
                    + "' (util-linux) is not installed");
        }
        return found;
    }

    /** A call's hold on a sandbox: the sandbox is not stopped while a lease is open. */
    public final class Lease implements ProcessRunner.SandboxLease {
        private final Holder holder;
        private boolean closed;

        private Lease(Holder holder) {
            this.holder = holder;
        }

        /**
         * The command line that runs a command in the sandbox, in {@code cwd} (a path the sandbox shows at the same
         * place as the host): join the sandbox's cgroup, enter its namespaces, drop every capability, change to
         * {@code cwd} inside. The rlimits step and the shell follow.
         */
        public List<String> prefix(Path cwd) {
            List<String> a = new ArrayList<>(24);
            if (holder.cgroup != null) {
                a.addAll(holder.cgroup.join());
            }
            a.addAll(List.of(nsenter, "--target", Long.toString(holder.holderPid), "--all", "--root", "--wd",
                    "--preserve-credentials", "--", setpriv));
            if (sandbox.asRoot()) {
                // root without a user namespace: no capability, as bubblewrap's --cap-drop ALL
                a.addAll(List.of("--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all"));
            }
            a.addAll(List.of("--no-new-privs", "--", env, "-C", cwd.toString(), "--"));
            return a;
        }

        /** {@code true} when the sandbox stopped while this lease was open (and not because the runner stopped it). */
        public boolean lost() {
            if (holder.stopping) {
                return false;
            }
            // the sandbox's init is dead (or a zombie) once the kernel killed the sandbox's processes with it
            long init = holder.initPid;
            String stat = read("/proc/" + init + "/stat");
            int close = stat.lastIndexOf(')');
            return init <= 0 || close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) == 'Z'
                    || stat.charAt(close + 2) == 'X' || !holder.process.isAlive();
        }

        /** The command is over: what it left behind in the sandbox is killed; the sandbox may become idle. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            holder.sweep();
            synchronized (holders) {
                holder.leases--;
                holder.lastUsed = System.nanoTime();
                if (holder.retired && holder.leases == 0) {
                    holder.stop("retired");
                }
            }
        }
    }

    /** One running sandbox. */
    private final class Holder {
        private final WarmSandboxes.Key key;
        private final List<Object> fileKeys;
        private volatile Process process;
        private volatile long holderPid;
        private volatile long initPid;
        private volatile CommandCgroups.Cgroup cgroup;
        private volatile boolean stopping;
        private boolean started;
        private RuntimeException failure;
        /** Guarded by {@code holders}. */
        private int leases;
        private long lastUsed = System.nanoTime();
        private boolean retired;

        Holder(WarmSandboxes.Key key) {
            this.key = key;
            this.fileKeys = WarmSandboxes.fileKeys(key.binds());
        }

        boolean usable() {
            synchronized (this) {
                if (!started) {
                    return failure == null; // being started by another call
                }
            }
            return process != null && process.isAlive() && fileKeys.equals(WarmSandboxes.fileKeys(key.binds()));
        }

        /** Starts the holder once (the first lease does it, the others wait for it). */
        synchronized void awaitStarted() {
            if (started) {
                return;
            }
            if (failure != null) {
                throw failure;
            }
            try {
                start();
                started = true;
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            }
        }

        private void start() {
            nsenter = nsenter != null ? nsenter : tool("nsenter");
            setpriv = setpriv != null ? setpriv : tool("setpriv");
            env = env != null ? env : tool("env");
            long t0 = System.nanoTime();
            CommandCgroups cgroups = limits.cgroups();
            try {
                cgroup = cgroups == null ? null : cgroups.create();
            } catch (IOException e) {
                throw new ToolError("sandbox-start", "cannot start team " + key.team() + "'s sandbox: " + e.getMessage());
            }
            List<String> cmd = new ArrayList<>();
            cmd.add("setsid");
            if (cgroup != null) {
                cmd.addAll(cgroup.join());
            }
            cmd.addAll(key.command());
            cmd.addAll(List.of("/bin/bash", "-c", HOLDER, HOLDER_NAME));
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(key.directory().toFile()).redirectErrorStream(true);
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
            Process p;
            try {
                // started by a thread that lives as long as the runner: bubblewrap's --die-with-parent (the parent
                // death signal) fires when the thread that started it ends, and pooled threads end when idle
                p = starter.submit(pb::start).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                releaseCgroup();
                throw new ToolError("sandbox-start", "interrupted while team " + key.team() + "'s sandbox started");
            } catch (ExecutionException e) {
                releaseCgroup();
                throw new ToolError("sandbox-start", "cannot start team " + key.team() + "'s sandbox: "
                        + e.getCause().getMessage());
            }
            process = p;
            String said;
            try {
                said = awaitReady(p);
            } catch (IOException e) {
                said = e.toString();
            }
            if (said != null) {
                p.destroyForcibly();
                releaseCgroup();
                throw new ToolError("sandbox-start", "team " + key.team() + "'s sandbox did not start"
                        + (said.isEmpty() ? "" : ": " + said));
            }
            holderPid = findHolder(p.pid());
            if (holderPid <= 0) {
                p.destroyForcibly();
                releaseCgroup();
                throw new ToolError("sandbox-start", "team " + key.team() + "'s sandbox started but its holder process"
                        + " was not found");
            }
            initPid = namespaceInit(holderPid);
            p.onExit().thenRun(() -> {
                if (!stopping) {
                    Log.warnf("team %s's sandbox (holder pid %d) stopped unexpectedly", key.team(), holderPid);
                }
                releaseCgroup();
            });
            Log.infof("team %s's sandbox started in %d ms (holder pid %d, in %s)", key.team(),
                    (System.nanoTime() - t0) / 1_000_000, holderPid, key.directory());
        }

        /** {@code null} when the holder said it is ready; else what the sandbox printed before it ended. */
        private String awaitReady(Process p) throws IOException {
            InputStream in = p.getInputStream();
            CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return in.read();
                } catch (IOException e) {
                    return -1;
                }
            }, Thread::startVirtualThread);
            int b;
            try {
                b = first.get(START_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return "not ready within " + START_SECONDS + " s";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            } catch (ExecutionException e) {
                return e.getCause().toString();
            }
            if (b == READY) {
                return null;
            }
            byte[] rest = in.readNBytes(2048);
            String text = ((b < 0 ? "" : String.valueOf((char) b)) + new String(rest, StandardCharsets.UTF_8)).strip()
                    .replaceAll("\\s+", " ");
            return text.length() > 400 ? text.substring(0, 400) + "…" : text;
        }

        /** Kills what calls left behind: the children of the sandbox's init other than the holder. */
        void sweep() {
            long init = initPid;
            if (init <= 0 || !process.isAlive()) {
                return;
            }
            for (long pid : children(init)) {
                if (pid != holderPid) {
                    ProcessHandle.of(pid).ifPresent(ph -> {
                        ph.descendants().forEach(ProcessHandle::destroyForcibly);
                        ph.destroyForcibly();
                    });
                }
            }
        }

        void retire(String why) {
            retired = true;
            Log.infof("team %s's sandbox (holder pid %d) is retired: %s", key.team(), holderPid, why);
            if (leases == 0) {
                stop(why);
            }
        }

        void stop(String why) {
            stopping = true;
            Process p = process;
            if (p == null) {
                return;
            }
            if (p.isAlive()) {
                Log.infof("team %s's sandbox (holder pid %d) stops: %s", key.team(), holderPid, why);
            }
            try {
                p.getOutputStream().close(); // the holder's stdin ends: it exits, and the sandbox with it
            } catch (IOException ignored) {
                // already gone
            }
            ProcessRunner.killGroup(p.pid());
            p.destroyForcibly();
        }

        private void releaseCgroup() {
            CommandCgroups.Cgroup cg = cgroup;
            if (cg != null) {
                cg.release();
            }
        }
    }

    /**
     * The holder among the descendants of {@code outer} (the process started): the one whose {@code $0} is the
     * holder's name; 0 when none is found.
     */
    static long findHolder(long outer) {
        return ProcessHandle.of(outer).stream().flatMap(h -> Stream.concat(Stream.of(h),
                        h.descendants())).mapToLong(ProcessHandle::pid)
                .filter(pid -> cmdline(pid).contains(HOLDER_NAME) && !cmdline(pid).get(0).endsWith("bwrap")
                        && !cmdline(pid).get(0).endsWith("unshare"))
                .reduce((a, b) -> b).orElse(0);
    }

    /** The init (PID 1) of {@code pid}'s PID namespace, seen from here: itself, or its nearest ancestor that is. */
    static long namespaceInit(long pid) {
        long p = pid;
        for (int i = 0; i < 8 && p > 1; i++) {
            String status = read("/proc/" + p + "/status");
            for (String line : status.split("\n")) {
                if (line.startsWith("NSpid:")) {
                    String[] f = line.substring(6).strip().split("\\s+");
                    if (f[f.length - 1].equals("1")) {
                        return p;
                    }
                }
            }
            long parent = ProcessHandle.of(p).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(0L);
            p = parent;
        }
        return 0;
    }

    /** The direct children of {@code pid} (its threads' {@code children} files). */
    static List<Long> children(long pid) {
        List<Long> out = new ArrayList<>();
        String[] tasks = new File("/proc/" + pid + "/task").list();
        if (tasks == null) {
            return out;
        }
        for (String t : tasks) {
            for (String c : read("/proc/" + pid + "/task/" + t + "/children").strip().split("\\s+")) {
                if (!c.isEmpty()) {
                    out.add(Long.parseLong(c));
                }
            }
        }
        return out;
    }

    private static List<String> cmdline(long pid) {
        String s = read("/proc/" + pid + "/cmdline");
        return s.isEmpty() ? List.of("") : List.of(s.split("\0"));
    }

    private static String read(String file) {
        try (FileInputStream in = new FileInputStream(file)) {
            return new String(in.readNBytes(8192), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}

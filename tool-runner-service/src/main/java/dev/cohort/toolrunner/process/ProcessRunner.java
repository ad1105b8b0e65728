package dev.cohort.toolrunner.process;

import dev.cohort.toolrunner.CallPhases;
import dev.cohort.toolrunner.ToolError;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.List;
import java.util.Map;

/**
 * Runs one shell command the safe way: {@code setsid} makes the shell the leader of a new process group, so a
 * timeout (or the end of the command) kills the <b>whole group</b>, grandchildren included; stdin is
 * {@code /dev/null}; stdout and stderr share one pipe, so they arrive in order; output is captured by an
 * {@link OutputCapture}. Hook commands use the other form ({@link #run(Spec, OutputCapture, OutputCapture, Path,
 * java.util.function.Consumer)}): stdin is read from a file and stderr is captured on its own. Processes left behind by a finished command ({@code sleep 300 &}) are killed too: work that
 * should outlive its call belongs in a background job. A command whose stored output passes its limit
 * ({@link OutputCapture#storeAtMost}) has its group killed at once; where cgroups are used, a cold start's session
 * leader joins the command's cgroup before it execs the sandbox ({@link CommandCgroups}).
 */
public final class ProcessRunner {
    /** How long to wait for the output pipe to drain after the shell exits before killing stragglers that hold it. */
    private static final long DRAIN_MILLIS = 50;

    private ProcessRunner() {
    }

    /**
     * What to run.
     *
     * @param sandboxPrefix the sandbox's command line for {@code cwd} (a cold start)
     * @param warm          where a warm sandbox for this command comes from ({@code null}: always cold); used for
     *                      foreground commands without stdin or separate stderr
     * @param cgroups       where a cold start gets its cgroup ({@code null}: none); a warm sandbox has its own
     * @param team          the team sandbox the command runs in ({@code null}: none); {@code sandboxPrefix} then holds
     *                      only what runs inside it before the shell (the rlimits step)
     * @param teamWarm      where a command in a team sandbox finds an entry into it started ahead ({@code null}:
     *                      none, the entry starts with the call); used as {@code warm} is
     */
    public record Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
            List<String> sandboxPrefix, WarmSource warm, CommandCgroups cgroups, TeamSource team, TeamWarm teamWarm) {
        public Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
                List<String> sandboxPrefix, WarmSource warm, CommandCgroups cgroups, TeamSource team) {
            this(shell, command, cwd, env, timeout, sandboxPrefix, warm, cgroups, team, null);
        }

        public Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
                List<String> sandboxPrefix) {
            this(shell, command, cwd, env, timeout, sandboxPrefix, null, null, null, null);
        }

        public Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
                List<String> sandboxPrefix, WarmSource warm) {
            this(shell, command, cwd, env, timeout, sandboxPrefix, warm, null, null, null);
        }

        public Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
                List<String> sandboxPrefix, WarmSource warm, CommandCgroups cgroups) {
            this(shell, command, cwd, env, timeout, sandboxPrefix, warm, cgroups, null, null);
        }
    }

    /** The team sandbox of a command: a lease taken when the command starts, closed when it is over. */
    @FunctionalInterface
    public interface TeamSource {
        SandboxLease lease();
    }

    /** A team sandbox held for one command. */
    public interface SandboxLease extends AutoCloseable {
        /** The command line that enters the sandbox with {@code cwd} as working directory. */
        List<String> prefix(Path cwd);

        /** Whether the sandbox stopped while the lease was held. */
        boolean lost();

        @Override
        void close();
    }

    /** An entry into the sandbox of a lease, started ahead, or {@code null} when there is none. */
    @FunctionalInterface
    public interface TeamWarm {
        Prestarted take(SandboxLease lease);
    }

    /** A sandbox started ahead for one call, or {@code null} when there is none (the call starts cold). */
    @FunctionalInterface
    public interface WarmSource {
        Prestarted take();
    }

    /**
     * A sandbox started ahead of its call: a stub process that waits for one command header, answers {@link #GO}
     * once it has read it, then runs the command.
     */
    public interface Prestarted {
        Process process();

        /** The pids handed out while it started (null: unknown). */
        PidWindow startupPids();

        /** Sends the command's header to the stub. */
        void send(String shell, Path cwd, Map<String, String> env, String command) throws IOException;

        /** Kills the stub and what it started. */
        void kill();

        /** Kills what is left in its cgroup and removes the cgroup. */
        void releaseCgroup();

        /**
         * Whether it serves call after call: a call's header carries a token ({@link #sendCall}), its output ends with
         * an end mark holding the token and the status ({@link EndMarkedStream}), and after a clean end it goes back
         * ({@link #giveBack}) instead of ending.
         */
        default boolean loops() {
            return false;
        }

        /** Sends the header of one call to a stub that {@link #loops()}, leaving the pipe open. */
        default void sendCall(String token, String shell, Path cwd, Map<String, String> env, String command)
                throws IOException {
            throw new IOException("this entry serves one call: its header is sent with send()");
        }

        /** Its call ended cleanly and nothing of it is left: it may serve another call (else it is killed). */
        default void giveBack() {
            kill();
        }
    }

    /** The byte a stub answers when it has read its header and starts the command. */
    public static final int GO = 0x02;

    /** The exit code of a command whose sandbox or cgroup could not be set up. */
    public static final int SETUP_FAILED = 125;

    /**
     * How it ended.
     *
     * @param exitCode  the shell's exit code; {@code null} when killed (timeout or cancel)
     * @param timedOut  the timeout expired and the group was killed
     * @param cancelled {@link Handle#cancel()} was called
     */
    public record Outcome(Integer exitCode, boolean timedOut, boolean cancelled, long durationMs) {
    }

    /** A running command that can be cancelled. */
    public static final class Handle {
        private final Process process;
        private final AtomicBoolean cancelled = new AtomicBoolean();

        Handle(Process process) {
            this.process = process;
        }

        /** Kills the process group; the waiting {@link #run} returns with {@code cancelled}. */
        public void cancel() {
            cancelled.set(true);
            killGroup(process.pid());
            process.destroyForcibly();
        }

        public long pid() {
            return process.pid();
        }
    }

    /** Starts {@code spec}; {@code onStart} receives the handle before waiting begins. */
    public static Outcome run(Spec spec, OutputCapture capture, Consumer<Handle> onStart)
            throws IOException, InterruptedException {
        return run(spec, capture, null, null, onStart);
    }

    /**
     * Starts {@code spec} with stdin read from {@code stdin} ({@code null} = {@code /dev/null}) and stderr captured by
     * {@code stderr} ({@code null} = merged into {@code capture}, in arrival order).
     */
    public static Outcome run(Spec spec, OutputCapture capture, OutputCapture stderr, Path stdin,
            Consumer<Handle> onStart) throws IOException, InterruptedException {
        if (spec.team() != null) {
            return runInTeamSandbox(spec, capture, stderr, stdin, onStart);
        }
        if (spec.warm() != null && stderr == null && stdin == null && onStart == null) {
            Outcome o = runWarm(spec, capture);
            if (o != null) {
                return o;
            }
            // the warm sandbox did not start the command (none, dead, or it ended before its acknowledgement): cold
        }
        // the command's cgroup, limited before its first process joins it; removed once the command is over
        CommandCgroups.Cgroup cgroup = spec.cgroups() == null ? null : spec.cgroups().create();
        try {
            return runCold(spec, capture, stderr, stdin, onStart, cgroup);
        } finally {
            if (cgroup != null) {
                cgroup.release();
            }
        }
    }

    /**
     * Runs the command in its team's sandbox : a new session entering the sandbox, then what
     * follows as for a cold start. A sandbox that stopped during the command fails the call with
     * {@code sandbox-stopped}: its processes were killed with the sandbox, so the command's outcome is unknown.
     */
    private static Outcome runInTeamSandbox(Spec spec, OutputCapture capture, OutputCapture stderr, Path stdin,
            Consumer<Handle> onStart) throws IOException, InterruptedException {
        SandboxLease lease = spec.team().lease();
        try {
            Outcome o = null;
            if (spec.teamWarm() != null && stderr == null && stdin == null && onStart == null) {
                // an entry started ahead: the header goes to its stub, as for a warm sandbox of its own
                Spec entry = new Spec(spec.shell(), spec.command(), spec.cwd(), spec.env(), spec.timeout(),
                        spec.sandboxPrefix(), () -> spec.teamWarm().take(lease));
                o = runWarm(entry, capture);
            }
            if (o == null) {
                List<String> prefix = new ArrayList<>(lease.prefix(spec.cwd()));
                prefix.addAll(spec.sandboxPrefix());
                o = runCold(spec, prefix, capture, stderr, stdin, onStart, null);
            }
            if (lease.lost()) {
                throw new ToolError("sandbox-stopped", "the team's sandbox stopped while the command ran, and its"
                        + " processes with it: the command may have partly run, and it is not run again. The next call"
                        + " starts a new sandbox; check the workspace, then retry if needed (rule: sandbox-stopped)");
            }
            return o;
        } finally {
            lease.close();
        }
    }

    private static Outcome runCold(Spec spec, OutputCapture capture, OutputCapture stderr, Path stdin,
            Consumer<Handle> onStart, CommandCgroups.Cgroup cgroup)
            throws IOException, InterruptedException {
        return runCold(spec, spec.sandboxPrefix(), capture, stderr, stdin, onStart, cgroup);
    }

    private static Outcome runCold(Spec spec, List<String> sandboxPrefix, OutputCapture capture, OutputCapture stderr,
            Path stdin, Consumer<Handle> onStart, CommandCgroups.Cgroup cgroup)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("setsid");
        if (cgroup != null) {
            cmd.addAll(cgroup.join()); // the session leader joins the cgroup, then execs the sandbox
        }
        cmd.addAll(sandboxPrefix);
        cmd.add(spec.shell());
        cmd.add("-c");
        cmd.add(spec.command());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(spec.cwd().toFile()).redirectErrorStream(stderr == null)
                .redirectInput(ProcessBuilder.Redirect.from(stdin == null ? new File("/dev/null") : stdin.toFile()));
        pb.environment().clear();
        pb.environment().putAll(spec.env());
        long start = System.nanoTime();
        Process p = pb.start();
        CallPhases.mark(CallPhases.STARTED);
        Handle handle = new Handle(p);
        if (onStart != null) {
            onStart.accept(handle);
        }
        killOnOutputLimit(p, capture, stderr);
        IOException[] readError = new IOException[1];
        PipeReader reader = PipeReader.start(() -> {
            try {
                capture.consume(p.getInputStream());
            } catch (IOException e) {
                readError[0] = e;
            }
        });
        PipeReader errReader = stderr == null ? null : PipeReader.start(() -> {
            try {
                stderr.consume(p.getErrorStream());
            } catch (IOException e) {
                readError[0] = e;
            }
        });
        return finish(spec, p, handle, reader, errReader, readError, capture, stderr, start);
    }

    /**
     * Runs the command in a warm sandbox : the header goes to the stub, and the first byte
     * of its output is its acknowledgement, written right before it execs the command; the rest is the command's
     * output. The call does not wait for the acknowledgement (one wake-up less): it waits for the exit, and then tells
     * from the output whether the command started. {@code null} when it provably did not (no sandbox to be had, the
     * pipe was closed, or the output ended, or began with something else, before the acknowledgement), so the caller
     * may start it cold; after a timeout or with an acknowledgement, never.
     */
    private static Outcome runWarm(Spec spec, OutputCapture capture) throws IOException, InterruptedException {
        Prestarted w = spec.warm().take();
        if (w == null) {
            return null;
        }
        if (w.loops()) {
            return runLooping(spec, capture, w);
        }
        Process p = w.process();
        long start = System.nanoTime();
        // the command's processes get pids from here on: with the sandbox's own, all the leftover check has to read
        long lastBeforeCommand = lastPid();
        if (!handOver(w, null, spec, capture)) {
            return null;
        }
        AtomicBoolean went = new AtomicBoolean();
        IOException[] readError = new IOException[1];
        PipeReader reader = readAfterAck(p, p.getInputStream(), capture, went, readError);
        Handle handle = new Handle(p);
        boolean timedOut = waitForExit(spec, p);
        if (!timedOut && !went.get() && reader.join(Duration.ofMillis(DRAIN_MILLIS)) && !went.get()) {
            // ended without its acknowledgement: the command was never exec'd
            w.kill();
            return null;
        }
        PidWindow startup = w.startupPids();
        try {
            return drain(p, handle, reader, null, readError, capture, null, start,
                    startup == null || lastBeforeCommand <= 0 ? null : List.of(startup, new PidWindow(lastBeforeCommand, 0)),
                    timedOut);
        } finally {
            w.releaseCgroup(); // the command is over: what is left in its cgroup is killed, the cgroup removed
        }
    }

    /**
     * Runs the command through an entry that serves call after call ({@link Prestarted#loops()}): the header with a
     * fresh token goes to its stub, the first byte of the output is the acknowledgement, and the output ends at the end
     * mark with that token and the command's status. Then whatever the command left in the entry's process group is
     * killed, and the entry goes back to serve another call only when that left nothing behind: no process still in
     * the group, no byte after the mark. A timeout, a cancel, an output over its limit, or a stub that ended without
     * the mark kill the entry and everything in it. {@code null}, as for {@link #runWarm}, when the command provably
     * did not start.
     */
    private static Outcome runLooping(Spec spec, OutputCapture capture, Prestarted w)
            throws IOException, InterruptedException {
        Process p = w.process();
        long start = System.nanoTime();
        long lastBeforeCommand = lastPid();
        String token = Long.toHexString(TOKENS.nextLong()) + Long.toHexString(TOKENS.nextLong());
        if (!handOver(w, token, spec, capture)) {
            return null;
        }
        AtomicBoolean went = new AtomicBoolean();
        IOException[] readError = new IOException[1];
        EndMarkedStream out = new EndMarkedStream(p.getInputStream(), token);
        PipeReader reader = readAfterAck(p, out, capture, went, readError);
        Handle handle = new Handle(p);
        boolean timedOut = !reader.join(spec.timeout());
        if (timedOut) {
            killGroup(p.pid());
            p.destroyForcibly();
            if (!reader.join(Duration.ofSeconds(5))) {
                p.getInputStream().close();
                reader.join(Duration.ofSeconds(1));
            }
        }
        CallPhases.mark(CallPhases.EXITED);
        boolean cancelled = handle.cancelled.get();
        if (!timedOut && !cancelled && !went.get()) {
            w.kill(); // no acknowledgement: the command was never exec'd
            return null;
        }
        Integer status = out.status();
        boolean clean = status != null && !timedOut && !cancelled && !capture.limitReached() && !out.trailing();
        // the command's processes got pids after the last one handed out before its header (the stub's own is older)
        if (clean && killLeftovers(p.pid(), List.of(new PidWindow(lastBeforeCommand + 1, lastPid())))
                && p.isAlive() && p.getInputStream().available() == 0) {
            w.giveBack();
        } else {
            w.kill();
            if (status == null && !timedOut && !cancelled && p.waitFor(5, TimeUnit.SECONDS)) {
                status = p.exitValue(); // the stub itself ended during the command (the command killed it)
            }
        }
        capture.close();
        if (readError[0] != null && !timedOut && !cancelled && !capture.limitReached()) {
            throw readError[0];
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        return new Outcome(timedOut || cancelled ? null : status, timedOut, cancelled, ms);
    }

    /**
     * Hands the call's header to the entry's stub ({@code token} {@code null}: an entry used once) and arms the output
     * limit; {@code false}, the entry killed, when it ended before its header: the command never ran.
     */
    private static boolean handOver(Prestarted w, String token, Spec spec, OutputCapture capture) {
        try {
            if (token == null) {
                w.send(spec.shell(), spec.cwd(), spec.env(), spec.command());
            } else {
                w.sendCall(token, spec.shell(), spec.cwd(), spec.env(), spec.command());
            }
        } catch (IOException e) {
            w.kill();
            return false;
        }
        CallPhases.mark(CallPhases.STARTED);
        killOnOutputLimit(w.process(), capture, null);
        return true;
    }

    /**
     * Reads a stub's output on a pooled thread: its first byte must be the acknowledgement ({@link #GO}, else nothing
     * is read and {@code went} stays false), then {@code output} goes to {@code capture}.
     */
    private static PipeReader readAfterAck(Process p, InputStream output, OutputCapture capture, AtomicBoolean went,
            IOException[] readError) {
        long[] marks = CallPhases.current();
        return PipeReader.start(() -> {
            try {
                if (p.getInputStream().read() != GO) {
                    return;
                }
                CallPhases.markOn(marks, CallPhases.ACKED);
                went.set(true);
                capture.consume(output);
                CallPhases.markOn(marks, CallPhases.OUTPUT_END);
            } catch (IOException e) {
                readError[0] = e;
            }
        });
    }

    private static final SecureRandom TOKENS = new SecureRandom();

    /**
     * Kills the members of group {@code pgid} among {@code pids} until none is left; {@code false} when some could not
     * be made to go (or {@code /proc} cannot be read), so the group's leader must not serve again.
     */
    private static boolean killLeftovers(long pgid, List<PidWindow> pids) {
        for (long pause : LEFTOVER_PAUSES_MS) {
            List<Long> members = groupMembers(pgid, pids);
            if (members == null) {
                return false;
            }
            if (members.isEmpty()) {
                return true;
            }
            signal(members, pgid);
            LockSupport.parkNanos(pause * 1_000_000);
        }
        List<Long> members = groupMembers(pgid, pids);
        return members != null && members.isEmpty();
    }

    /**
     * When the stored output passes its limit ({@link OutputCapture#storeAtMost}), the command's whole process group
     * is killed: a never-ending output ends the call at once instead of filling the disk until the timeout.
     */
    private static void killOnOutputLimit(Process p, OutputCapture capture, OutputCapture stderr) {
        // the group's leader is the process itself; no destroyForcibly(), which would close the pipe under its reader
        Runnable kill = () -> killGroup(p.pid());
        capture.onLimit(kill);
        if (stderr != null) {
            stderr.onLimit(kill);
        }
    }

    /** Waits for the shell (killing the group on timeout), drains the output, kills leftovers. */
    private static Outcome finish(Spec spec, Process p, Handle handle, PipeReader reader, PipeReader errReader,
            IOException[] readError, OutputCapture capture, OutputCapture stderr, long start)
            throws IOException, InterruptedException {
        boolean timedOut = waitForExit(spec, p);
        return drain(p, handle, reader, errReader, readError, capture, stderr, start,
                List.of(new PidWindow(p.pid(), 0)), timedOut);
    }

    /** Waits for the shell; on timeout kills its group and returns {@code true}. */
    private static boolean waitForExit(Spec spec, Process p) throws InterruptedException {
        boolean timedOut = false;
        try {
            if (!p.waitFor(spec.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                timedOut = true;
                killGroup(p.pid());
                p.destroyForcibly();
                p.waitFor();
            }
        } catch (InterruptedException e) {
            killGroup(p.pid());
            p.destroyForcibly();
            throw e;
        }
        CallPhases.mark(CallPhases.EXITED);
        return timedOut;
    }

    /** After the shell's exit: drains the output, kills leftovers, builds the outcome. */
    private static Outcome drain(Process p, Handle handle, PipeReader reader, PipeReader errReader, IOException[] readError,
            OutputCapture capture, OutputCapture stderr, long start, List<PidWindow> pids, boolean timedOut)
            throws IOException, InterruptedException {
        // the shell is gone; anything it left in its group is killed so no child outlives the call
        if (!reader.join(Duration.ofMillis(DRAIN_MILLIS)) || (errReader != null && !errReader.join(Duration.ofMillis(DRAIN_MILLIS)))) {
            killGroup(p.pid());
            if (!reader.join(Duration.ofSeconds(5))) {
                p.getInputStream().close(); // a process outside the group holds the pipe: stop reading
                reader.join(Duration.ofSeconds(1));
            }
            if (errReader != null && !errReader.join(Duration.ofSeconds(5))) {
                p.getErrorStream().close();
                errReader.join(Duration.ofSeconds(1));
            }
        } else {
            // pids handed out since the command started cover its processes unless the pid counter could have
            // wrapped twice since (a second is far too short for that): then every pid is read
            killGroupAsync(p.pid(), System.nanoTime() - start < RECENT_NANOS ? pids : null);
        }
        capture.close();
        if (stderr != null) {
            stderr.close();
        }
        boolean overLimit = capture.limitReached() || (stderr != null && stderr.limitReached());
        if (readError[0] != null && !timedOut && !handle.cancelled.get() && !overLimit) {
            throw readError[0];
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        boolean cancelled = handle.cancelled.get();
        Integer exit = timedOut || cancelled ? null : p.exitValue();
        return new Outcome(exit, timedOut, cancelled, ms);
    }

    /** SIGKILL to every process of the group led by {@code pgid}. */
    public static void killGroup(long pgid) {
        try {
            Process k = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            k.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no 'kill' binary: fall back to the descendants Java can see
            ProcessHandle.of(pgid).ifPresent(h -> h.descendants().forEach(ProcessHandle::destroyForcibly));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Kills leftovers off the latency path. The common case is that nothing is left (or only the sandbox's own init,
     * about to exit), so instead of forking {@code kill} for every call (a process start: ~2 ms of CPU in the JVM and
     * the child), {@code /proc} is scanned for members of the group and each one found is sent SIGKILL directly (see
     * {@link #killLeftovers}); the rounds run on one scheduler thread (platform: reads of {@code /proc} on a virtual
     * thread would pin its carrier), rescheduled instead of sleeping.
     */
    private static void killGroupAsync(long pgid, List<PidWindow> pids) {
        leftoverRound(pgid, pids, 0);
    }

    /** A command that ran shorter than this: the pid counter cannot have wrapped twice meanwhile. */
    private static final long RECENT_NANOS = 1_000_000_000L;

    /**
     * Pids handed out from {@code from} to {@code to} (inclusive; {@code to} = 0: up to the last pid handed out when
     * looked at), across at most one wrap of the pid counter.
     */
    public record PidWindow(long from, long to) {
        boolean contains(long pid, long lastNow) {
            long end = to > 0 ? to : lastNow;
            return from <= end ? pid >= from && pid <= end : pid >= from || pid <= end;
        }

        /** How many pids it spans, the counter wrapping after {@code pidMax - 1} ({@code /proc/sys/kernel/pid_max}). */
        long size(long lastNow, long pidMax) {
            long end = to > 0 ? to : lastNow;
            return from <= end ? end - from + 1 : Math.max(0, pidMax - from) + end; // pid 0 is never handed out
        }

        /** Each pid of the window, the counter wrapping after {@code pidMax - 1}. */
        void forEach(long lastNow, long pidMax, LongConsumer each) {
            long end = to > 0 ? to : lastNow;
            if (from <= end) {
                for (long pid = from; pid <= end; pid++) {
                    each.accept(pid);
                }
                return;
            }
            for (long pid = from; pid < pidMax; pid++) {
                each.accept(pid);
            }
            for (long pid = 1; pid <= end; pid++) {
                each.accept(pid);
            }
        }
    }

    /**
     * Up to this many pids are probed one by one (a {@code stat} of {@code /proc/<pid>}, ~1-2 us for one that is gone)
     * rather than by listing {@code /proc} (~0.2-0.3 ms with a thousand processes).
     */
    private static final long DIRECT_PROBE_MAX = 256;

    /** The pid counter wraps after {@code pid_max - 1}; {@link Long#MAX_VALUE} when unknown (a wrapped window is then too big to probe). */
    private static final long PID_MAX = pidMax();

    private static long pidMax() {
        long max = procNumber("/proc/sys/kernel/pid_max");
        return max >= 301 ? max : Long.MAX_VALUE / 4; // the kernel's minimum is 301: anything less is a misread
    }

    /** A number in a {@code /proc/sys} file, read with a plain {@code read} (see {@link #lastPid()}); 0 when unreadable. */
    private static long procNumber(String file) {
        try (FileInputStream in = new FileInputStream(file)) {
            return Long.parseLong(new String(in.readNBytes(32), StandardCharsets.US_ASCII).strip());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static final ScheduledExecutorService LEFTOVERS =
            Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "leftover-kill");
                t.setDaemon(true);
                return t;
            });

    private static void leftoverRound(long pgid, List<PidWindow> pids, int round) {
        LEFTOVERS.schedule(() -> {
            try {
                List<Long> members = groupMembers(pgid, pids);
                if (members != null && members.isEmpty()) {
                    return;
                }
                if (members != null && round + 1 < LEFTOVER_PAUSES_MS.length) {
                    signal(members, pgid);
                    leftoverRound(pgid, pids, round + 1);
                    return;
                }
                // no /proc, or still populated after every round: the atomic group kill (a process: not on this thread)
                Thread.ofVirtual().name("kill-" + pgid).start(() -> killGroup(pgid));
            } catch (RuntimeException e) {
                Thread.ofVirtual().name("kill-" + pgid).start(() -> killGroup(pgid));
            }
        }, LEFTOVER_PAUSES_MS[round], TimeUnit.MILLISECONDS);
    }

    /**
     * Pauses before each scan for leftovers, in ms: the sandbox's own processes (bubblewrap's init, ending with the
     * command) are usually gone a moment after the shell's exit, so a first look after 5 ms mostly finds nothing and
     * the scan runs once; later rounds look again after what was signalled had time to die. After the last round a
     * group still populated (it keeps forking) gets the atomic {@code kill -- -pgid}.
     */
    private static final long[] LEFTOVER_PAUSES_MS = {5, 20, 100, 500};

    /**
     * Kills every live member of group {@code pgid} and waits until none is left (the synchronous form of what
     * follows every command): each member found in {@code /proc} gets SIGKILL through its {@link ProcessHandle}
     * (which checks the process's start time, so a pid reused since the scan is never hit), and the scan repeats, so
     * a member that forked meanwhile is caught by the next round; a group still populated after the last round gets
     * the atomic {@code kill -- -pgid}. Zombies are skipped: they are dead and only wait for their parent. Returns
     * how many processes were signalled (the group kill counts one).
     */
    static int killLeftovers(long pgid) {
        int signalled = 0;
        for (long pause : LEFTOVER_PAUSES_MS) {
            LockSupport.parkNanos(pause * 1_000_000);
            List<Long> members = groupMembers(pgid, null);
            if (members == null) {
                killGroup(pgid); // no /proc: assume the worst
                return signalled + 1;
            }
            if (members.isEmpty()) {
                return signalled;
            }
            signalled += signal(members, pgid);
        }
        killGroup(pgid);
        return signalled + 1;
    }

    /** SIGKILL to each of {@code members} that is still in group {@code pgid}; how many were signalled. */
    private static int signal(List<Long> members, long pgid) {
        int n = 0;
        for (long pid : members) {
            var h = ProcessHandle.of(pid);
            // re-checked after taking the handle (which pins the start time): still a member, so still ours
            if (h.isPresent() && isMember(pid, pgid)) {
                h.get().destroyForcibly();
                n++;
            }
        }
        return n;
    }

    /**
     * The last pid the kernel handed out in this PID namespace; 0 when unknown (then every pid is read).
     * {@code Files.readString} must not be used here: on this kernel it reads {@code 2} from this file whatever the
     * counter (a {@code FileInputStream} and {@code cat} read the real value), which made every earlier leftover check
     * take the pid counter for wrapped and read every process.
     */
    public static long lastPid() {
        return procNumber("/proc/sys/kernel/ns_last_pid");
    }

    /** {@code true} when some live process's process group is {@code pgid} (read from /proc/<pid>/stat). */
    static boolean hasGroupMembers(long pgid) {
        List<Long> m = groupMembers(pgid, null);
        return m == null || !m.isEmpty();
    }

    /**
     * The live (not zombie) members of group {@code pgid}, from {@code /proc/<pid>/stat}; {@code null} when
     * {@code /proc} cannot be read. Only the pids in {@code pids} are read ({@code null}: every pid): a member was
     * created by the group's leader's start-up or by the command, so its pid was handed out then; reading every
     * process's {@code stat} costs ~10 us each, over a millisecond per call on a machine with a hundred processes.
     */
    static List<Long> groupMembers(long pgid, List<PidWindow> pids) {
        long last = pids == null ? 0 : lastPid();
        if (last > 0 && PID_MAX < Long.MAX_VALUE / 4 && last < PID_MAX) {
            // a few pids (the usual case: a short command): each one's stat is opened directly, listing /proc (a
            // thousand entries on a busy machine) would cost more than the reads
            long span = 0;
            for (PidWindow w : pids) {
                span += w.size(last, PID_MAX);
            }
            if (span <= DIRECT_PROBE_MAX) {
                List<Long> out = new ArrayList<>(2);
                for (PidWindow w : pids) {
                    w.forEach(last, PID_MAX, pid -> {
                        // most pids of the window belong to processes that already ended: a stat, not a failed open
                        // (whose exception costs more than the check)
                        if (new File("/proc/" + pid).exists() && isMember(pid, pgid)) {
                            out.add(pid);
                        }
                    });
                }
                return out.stream().distinct().toList();
            }
        }
        String[] names = new File("/proc").list((d, name) -> {
            if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                return false;
            }
            if (pids == null || last <= 0 || last >= PID_MAX) {
                return true;
            }
            long pid = pidOf(name);
            for (PidWindow w : pids) {
                if (w.contains(pid, last)) {
                    return true;
                }
            }
            return false;
        });
        if (names == null) {
            return null;
        }
        List<Long> out = new ArrayList<>(2);
        for (String name : names) {
            long pid = pidOf(name);
            if (pid > 0 && isMember(pid, pgid)) {
                out.add(pid);
            }
        }
        return out;
    }

    /** The pid a {@code /proc} entry names, or -1. */
    private static long pidOf(String name) {
        try {
            return Long.parseLong(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** {@code true} when {@code pid} is alive (not a zombie) and in group {@code pgid}. */
    private static boolean isMember(long pid, long pgid) {
        // /proc/<pid>/stat: "pid (comm) state ppid pgrp ...", comm may hold spaces and parentheses (hence the last ')');
        // read as bytes into a small buffer: this runs for every newer process after every call
        byte[] b = new byte[256]; // enough for the fields up to the process group (the name is at most 64 bytes)
        int n;
        try (FileInputStream in = new FileInputStream("/proc/" + pid + "/stat")) {
            n = in.readNBytes(b, 0, b.length);
        } catch (IOException | RuntimeException e) {
            return false; // it ended while scanning
        }
        int close = -1;
        for (int i = n - 1; i >= 0; i--) {
            if (b[i] == ')') {
                close = i;
                break;
            }
        }
        if (close < 0 || close + 4 >= n) {
            return false;
        }
        byte state = b[close + 2];
        int i = close + 4; // after "state "
        while (i < n && b[i] != ' ') {
            i++; // ppid
        }
        long pgrp = 0;
        for (i++; i < n && b[i] >= '0' && b[i] <= '9'; i++) {
            pgrp = pgrp * 10 + (b[i] - '0');
        }
        return pgrp == pgid && state != 'Z' && state != 'X';
    }
}

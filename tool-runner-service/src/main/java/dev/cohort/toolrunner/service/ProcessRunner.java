package dev.cohort.toolrunner.service;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one shell command the safe way: {@code setsid} makes the shell the leader of a new process group, so a
 * timeout (or the end of the command) kills the <b>whole group</b>, grandchildren included; stdin is
 * {@code /dev/null}; stdout and stderr share one pipe, so they arrive in order; output is captured by an
 * {@link OutputCapture}. Hook commands use the other form ({@link #run(Spec, OutputCapture, OutputCapture, Path,
 * java.util.function.Consumer)}): stdin is read from a file and stderr is captured on its own. Processes left behind by a finished command ({@code sleep 300 &}) are killed too: work that
 * should outlive its call belongs in a background job.
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
     */
    public record Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
            List<String> sandboxPrefix, WarmSource warm) {
        public Spec(String shell, String command, Path cwd, Map<String, String> env, Duration timeout,
                List<String> sandboxPrefix) {
            this(shell, command, cwd, env, timeout, sandboxPrefix, null);
        }
    }

    /** A warm sandbox for one call, or {@code null} when there is none (the call starts cold). */
    @FunctionalInterface
    public interface WarmSource {
        WarmSandboxes.Warm take();
    }

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
    public static Outcome run(Spec spec, OutputCapture capture, java.util.function.Consumer<Handle> onStart)
            throws IOException, InterruptedException {
        return run(spec, capture, null, null, onStart);
    }

    /**
     * Starts {@code spec} with stdin read from {@code stdin} ({@code null} = {@code /dev/null}) and stderr captured by
     * {@code stderr} ({@code null} = merged into {@code capture}, in arrival order).
     */
    public static Outcome run(Spec spec, OutputCapture capture, OutputCapture stderr, Path stdin,
            java.util.function.Consumer<Handle> onStart) throws IOException, InterruptedException {
        if (spec.warm() != null && stderr == null && stdin == null && onStart == null) {
            Outcome o = runWarm(spec, capture);
            if (o != null) {
                return o;
            }
            // the warm sandbox did not start the command (none, dead, or it ended before its acknowledgement): cold
        }
        List<String> cmd = new ArrayList<>();
        cmd.add("setsid");
        cmd.addAll(spec.sandboxPrefix());
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
        IOException[] readError = new IOException[1];
        Thread reader = Thread.ofVirtual().name("output-" + p.pid()).start(() -> {
            try {
                capture.consume(p.getInputStream());
            } catch (IOException e) {
                readError[0] = e;
            }
        });
        Thread errReader = stderr == null ? null : Thread.ofVirtual().name("stderr-" + p.pid()).start(() -> {
            try {
                stderr.consume(p.getErrorStream());
            } catch (IOException e) {
                readError[0] = e;
            }
        });
        return finish(spec, p, handle, reader, errReader, readError, capture, stderr, start);
    }

    /**
     * Runs the command in a warm sandbox (see {@link WarmSandboxes}): the header goes to the stub, and the first byte
     * of its output is its acknowledgement, written right before it execs the command; the rest is the command's
     * output. The call does not wait for the acknowledgement (one wake-up less): it waits for the exit, and then tells
     * from the output whether the command started. {@code null} when it provably did not (no sandbox to be had, the
     * pipe was closed, or the output ended, or began with something else, before the acknowledgement), so the caller
     * may start it cold; after a timeout or with an acknowledgement, never.
     */
    private static Outcome runWarm(Spec spec, OutputCapture capture) throws IOException, InterruptedException {
        WarmSandboxes.Warm w = spec.warm().take();
        if (w == null) {
            return null;
        }
        Process p = w.process();
        long start = System.nanoTime();
        try {
            w.send(spec.shell(), spec.cwd(), spec.env(), spec.command());
        } catch (IOException e) {
            w.kill(); // it ended before its header: the command never ran
            return null;
        }
        CallPhases.mark(CallPhases.STARTED);
        AtomicBoolean went = new AtomicBoolean();
        IOException[] readError = new IOException[1];
        Thread reader = Thread.ofVirtual().name("output-" + p.pid()).start(() -> {
            try {
                java.io.InputStream in = p.getInputStream();
                if (in.read() != WarmSandboxes.GO) {
                    return;
                }
                went.set(true);
                capture.consume(in);
            } catch (IOException e) {
                readError[0] = e;
            }
        });
        Handle handle = new Handle(p);
        boolean timedOut = waitForExit(spec, p);
        if (!timedOut && !went.get() && reader.join(Duration.ofMillis(DRAIN_MILLIS)) && !went.get()) {
            // ended without its acknowledgement: the command was never exec'd
            w.kill();
            return null;
        }
        return drain(p, handle, reader, null, readError, capture, null, start, timedOut);
    }

    /** Waits for the shell (killing the group on timeout), drains the output, kills leftovers. */
    private static Outcome finish(Spec spec, Process p, Handle handle, Thread reader, Thread errReader,
            IOException[] readError, OutputCapture capture, OutputCapture stderr, long start)
            throws IOException, InterruptedException {
        boolean timedOut = waitForExit(spec, p);
        return drain(p, handle, reader, errReader, readError, capture, stderr, start, timedOut);
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
    private static Outcome drain(Process p, Handle handle, Thread reader, Thread errReader, IOException[] readError,
            OutputCapture capture, OutputCapture stderr, long start, boolean timedOut)
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
            killGroupAsync(p.pid());
        }
        capture.close();
        if (stderr != null) {
            stderr.close();
        }
        if (readError[0] != null && !timedOut && !handle.cancelled.get()) {
            throw readError[0];
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        boolean cancelled = handle.cancelled.get();
        Integer exit = timedOut || cancelled ? null : p.exitValue();
        return new Outcome(exit, timedOut, cancelled, ms);
    }

    /** SIGKILL to every process of the group led by {@code pgid}. */
    static void killGroup(long pgid) {
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
     * Kills leftovers off the latency path. The common case is that nothing is left, so instead of forking
     * {@code kill} for every call, {@code /proc} is scanned for members of the group (cheap, no exec), and only
     * when some are found is the atomic group kill used.
     */
    private static void killGroupAsync(long pgid) {
        Thread.ofVirtual().name("reap-" + pgid).start(() -> {
            if (hasGroupMembers(pgid)) {
                killGroup(pgid);
            }
        });
    }

    private static boolean newer(String pidName, long pgid) {
        try {
            return Long.parseLong(pidName) >= pgid;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    /** The last pid the kernel handed out; {@code Long.MAX_VALUE} (= "assume no wrap") would be unsafe, so 0 on error. */
    private static long lastPid() {
        try {
            return Long.parseLong(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/ns_last_pid")).strip());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** {@code true} when some process's process group is {@code pgid} (read from /proc/<pid>/stat). */
    static boolean hasGroupMembers(long pgid) {
        // Members of the group were created after its leader, so they have larger pids — unless the pid counter
        // wrapped since, which ns_last_pid reveals (then everything is read). Reading only newer processes keeps
        // this check from costing milliseconds of CPU per call on a busy host.
        boolean wrapped = lastPid() < pgid;
        java.io.File[] procs = new java.io.File("/proc").listFiles((d, name) -> !name.isEmpty()
                && Character.isDigit(name.charAt(0)) && (wrapped || newer(name, pgid)));
        if (procs == null) {
            return true; // no /proc: assume the worst and kill
        }
        for (java.io.File f : procs) {
            try {
                String stat = java.nio.file.Files.readString(f.toPath().resolve("stat"));
                String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ", 4);
                if (Long.parseLong(rest[2]) == pgid) {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                // the process ended while scanning
            }
        }
        return false;
    }
}

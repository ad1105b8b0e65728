package dev.cohort.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * The service JVMs of {@code cohort up} and what happens when one exits on its own.
 *
 * <p>Sequence: {@link #start} each child (its output appended to its log) → {@link #arm} once all are ready: from then
 * on a child's exit is reported in one console line and, as {@link RestartPolicy} decides, the child is started again
 * after a backoff (and announced when its readiness is UP again) or given up on while the others keep running →
 * {@link #stop} ends supervision (no restart starts after it) and hands back every live process, to be stopped by PID.
 * Before {@link #arm} an exit is {@code cohort up}'s start-up failure, reported by its caller.
 */
final class Supervisor {

    /** One service JVM: how to start it, and its current process (replaced by each restart). */
    static final class Child {
        final String name;
        /** The API's port. */
        final int port;
        /** Where health and metrics are served: readiness is asked there. */
        final int managementPort;
        final Path log;
        private final ProcessBuilder builder;
        private Process process;
        private Duration startedAt;
        private RestartPolicy.History history = RestartPolicy.History.NONE;

        private Child(String name, int port, int managementPort, ProcessBuilder builder, Path log) {
            this.name = name;
            this.port = port;
            this.managementPort = managementPort;
            this.builder = builder;
            this.log = log;
        }

        synchronized Process process() {
            return process;
        }
    }

    /**
     * How long an exit waits before it is reported: a Ctrl-C in a terminal signals the children too when they share
     * its session (where {@code setsid} is missing: {@link UpCommand#sessionPrefix()}), and one may end just before
     * cohort up's own shutdown begins; that exit is part of the shutdown, not a crash to report.
     */
    private static final Duration GRACE = Duration.ofMillis(500);

    private final RestartPolicy policy;
    private final IntPredicate ready;
    private final PrintStream out;
    private final long origin = System.nanoTime();
    private final List<Child> children = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cohort-up-restarts");
        t.setDaemon(true);
        return t;
    });
    /** Guards {@link #armed}, {@link #stopping}, the children's processes: a restart and {@link #stop} never interleave. */
    private final Object lock = new Object();
    private boolean armed;
    private boolean stopping;

    /** {@code ready} answers whether the service with that management port reports {@code /q/health/ready} UP. */
    Supervisor(RestartPolicy policy, IntPredicate ready, PrintStream out) {
        this.policy = policy;
        this.ready = ready;
        this.out = out;
    }

    /** Starts a child (not yet supervised: see {@link #arm}). */
    Child start(String name, int port, int managementPort, ProcessBuilder builder, Path log) throws IOException {
        Child c = new Child(name, port, managementPort, builder.redirectErrorStream(true).redirectOutput(Redirect.appendTo(log.toFile())), log);
        synchronized (lock) {
            if (stopping) {
                throw new IllegalStateException("cohort up is stopping");
            }
            synchronized (c) {
                c.process = c.builder.start();
                c.startedAt = now();
            }
            children.add(c);
        }
        return c;
    }

    List<Child> children() {
        synchronized (lock) {
            return List.copyOf(children);
        }
    }

    /** From now on an exit is restarted or given up on; one that happened already is handled at once. */
    void arm() {
        synchronized (lock) {
            armed = true;
            for (Child c : children) {
                watch(c, c.process());
            }
        }
    }

    /** Ends supervision: pending restarts are cancelled and none starts after this; returns the live processes. */
    List<Process> stop() {
        synchronized (lock) {
            stopping = true;
            timer.shutdownNow();
            List<Process> live = new ArrayList<>();
            for (Child c : children) {
                Process p = c.process();
                if (p.isAlive()) {
                    live.add(p);
                }
            }
            return live;
        }
    }

    private void watch(Child c, Process p) {
        p.onExit().thenRun(() -> exited(c, p));
    }

    private void exited(Child c, Process p) {
        Duration at = now();
        synchronized (lock) {
            if (!stopping && armed && c.process() == p) {
                timer.schedule(() -> decide(c, p, at), GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Reports the exit at {@code at} and restarts or gives up, unless cohort up began stopping meanwhile. */
    private void decide(Child c, Process p, Duration at) {
        synchronized (lock) {
            if (stopping || c.process() != p) {
                return; // cohort up's own shutdown, or an old process
            }
            String what = c.name + " (pid " + p.pid() + ") exited unexpectedly: " + describeExit(p.exitValue());
            switch (policy.onExit(c.history, c.startedAt, at)) {
                case RestartPolicy.Restart r -> {
                    c.history = r.next();
                    out.println("cohort up: " + what + "; restarting it in " + format(r.delay()) + " (restart " + r.restartsInWindow()
                            + " of at most " + policy.maxRestarts() + " within " + format(policy.window()) + ")");
                    timer.schedule(() -> restart(c, p), r.delay().toMillis(), TimeUnit.MILLISECONDS);
                }
                case RestartPolicy.GiveUp g -> {
                    out.println("cohort up: " + what + "; giving up on it ("
                            + (policy.maxRestarts() == 0 ? "restarts are off: --max-restarts 0"
                                    : "already restarted " + g.restartsInWindow() + (g.restartsInWindow() == 1 ? " time" : " times")
                                            + " within " + format(policy.window()))
                            + "), the other services keep running; its log: " + c.log);
                    tail(c.log, out);
                }
            }
        }
    }

    private void restart(Child c, Process old) {
        Process p;
        synchronized (lock) {
            if (stopping || c.process() != old) {
                return;
            }
            try {
                synchronized (c) {
                    c.process = c.builder.start();
                    c.startedAt = now();
                    p = c.process;
                }
            } catch (IOException e) {
                out.println("cohort up: cannot restart " + c.name + " (" + e.getMessage() + "); giving up on it, the other services keep running");
                return;
            }
            watch(c, p);
        }
        long t0 = System.nanoTime();
        Thread.ofVirtual().name("cohort-up-ready-" + c.name).start(() -> announceWhenReady(c, p, t0));
    }

    /** Prints "is back" once the restarted child is ready; stops looking when it exits (reported by then) or on stop. */
    private void announceWhenReady(Child c, Process p, long t0) {
        while (p.isAlive()) {
            synchronized (lock) {
                if (stopping || c.process() != p) {
                    return;
                }
            }
            if (ready.test(c.managementPort)) {
                out.printf("cohort up: %s is back (pid %d, ready %.1f s after its restart)%n", c.name, p.pid(),
                        (System.nanoTime() - t0) / 1e9);
                return;
            }
            try {
                Thread.sleep(250); // readiness poll, as at start-up
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Duration now() {
        return Duration.ofNanos(System.nanoTime() - origin);
    }

    /** Java reports a child killed by signal N as exit code 128 + N (as shells do). */
    static String describeExit(int code) {
        if (code > 128 && code <= 128 + 64) {
            int signal = code - 128;
            String name = SIGNALS.get(signal);
            return "killed by " + (name == null ? "signal " + signal : name) + " (exit code " + code + ")";
        }
        return "exit code " + code;
    }

    private static final Map<Integer, String> SIGNALS = Map.of(1, "SIGHUP", 2, "SIGINT", 3, "SIGQUIT", 6, "SIGABRT",
            9, "SIGKILL", 11, "SIGSEGV", 13, "SIGPIPE", 15, "SIGTERM");

    /** "1 s", "30 s", "10 min", "90 s". */
    static String format(Duration d) {
        long s = Math.max(0, (d.toMillis() + 500) / 1000);
        return s >= 60 && s % 60 == 0 ? s / 60 + " min" : s + " s";
    }

    /** The last 30 lines of a log, indented, on {@code out}. */
    static void tail(Path log, PrintStream out) {
        try {
            List<String> lines = Files.readAllLines(log);
            lines.subList(Math.max(0, lines.size() - 30), lines.size()).forEach(l -> out.println("  | " + l));
        } catch (IOException ignored) {
            // no log
        }
    }
}

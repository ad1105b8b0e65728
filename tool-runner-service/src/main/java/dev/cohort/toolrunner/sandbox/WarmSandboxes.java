package dev.cohort.toolrunner.sandbox;

import dev.cohort.toolrunner.AfterResponse;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.CommandCgroups;
import dev.cohort.toolrunner.process.PipeReader;
import dev.cohort.toolrunner.process.ProcessRunner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.logging.Log;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Warm sandboxes: {@code bash} calls start in a sandbox that was started <em>before</em> the call arrived, so the
 * namespace and mount set-up of bubblewrap (and the JVM's process spawn) is off the call's latency path.
 *
 * <p>A warm sandbox is exactly the per-call sandbox of today, started early: {@code setsid <sandbox prefix>
 * /bin/bash -c STUB}, with the same bubblewrap (or unshare) arguments a call in that place gets — same binds, hidden
 * directories, network policy, capability drop — except that it enters the containment root instead of the call's
 * cwd. The stub clears its environment, says it is ready and blocks reading a header from its stdin pipe. A call takes
 * one, writes the header (its shell, cwd, command and scrubbed environment, each field after its length), and the
 * stub {@code cd}s there, puts stdin on {@code /dev/null}, exports exactly the call's environment, acknowledges and
 * {@code exec}s
 * {@code <shell> -c <command>}. Each warm sandbox serves <b>one</b> call and dies with it (the PID namespace ends with
 * the command), so isolation between calls is what it was: nothing of a previous call (environment, {@code /tmp},
 * processes) is there. The process group, timeout kill, output pipe and caps are {@link ProcessRunner}'s, unchanged.
 *
 * <p>A warm sandbox has a cold start's limits: its command line ends with the same {@code prlimit} step (part of its
 * key), and where cgroups are used it gets a cgroup of its own when it starts, released after its call
 * ({@link CommandLimits}).
 *
 * <p>Pools are keyed by the sandbox's whole command line (team, containment root, binds, network) and started
 * lazily: the first call of a key starts its own (as a cold call would) and a replacement is started off the latency
 * path, on a starter thread, each time one is taken: once the call has been answered ({@link AfterResponse}) when
 * another ready sandbox is left for the next call, else at once. A pool unused for {@code warm-sandbox.idle-timeout} is evicted
 * (its processes killed), and at most {@code warm-sandbox.max-pools} pools are kept (the least recently used goes);
 * pools of entries into team sandboxes have a cap of their own, {@code warm-sandbox.max-entry-pools}.
 * A warm sandbox that died, or whose bound directories were replaced since it started (a different inode at the
 * workspace, home or {@code .git} path), is discarded and the call starts cold, exactly as without warm sandboxes.
 * A call is retried cold only when its warm sandbox provably did not start the command (no acknowledgement before
 * end of output), so a command never runs twice.
 */
@ApplicationScoped
public class WarmSandboxes {
    /** Written by the stub when it waits for its header (a control byte: never the start of an error message). */
    static final int READY = 0x06;
    /** Written by the stub right before it execs the command. */
    static final int GO = ProcessRunner.GO;
    /** How long a call waits for a warm sandbox that is still starting before it starts cold instead. */
    private static final long READY_WAIT_MS = 10_000;

    /**
     * Variables a new bash reads only when it starts, or sets itself: a call whose environment holds one is run by a
     * new bash ({@code exec}), not in the stub's shell. (Read-only ones, {@code SHELLOPTS} or an exported function,
     * already fail the stub's {@code export}: it exits before its acknowledgement and the call starts cold.)
     */
    static final List<String> STARTUP_VARIABLES = List.of("BASH_ENV", "ENV", "IFS", "PS4",
            "SHLVL", "PWD", "OLDPWD", "POSIXLY_CORRECT", "BASH_COMPAT", "BASH_XTRACEFD", "BASH_ARGV0", "LINENO",
            "BASH_EXECUTION_STRING");

    /** Unsets every exported variable, without a fork: ${!X*} lists the names starting with X, @a their attributes. */
    private static final String CLEAR_ENVIRONMENT = "for __v in " + allNames()
            + "; do [[ ${!__v@a} == *x* ]] && unset \"$__v\" 2>/dev/null; done; unset __v";

    /** Cuts the header {@code __h} into the array {@code __f} by the 8-digit length before each field. */
    private static final String SPLIT_FIELDS = "while [ $__o -lt ${#__h} ]; do __n=$((10#${__h:__o:8})); __f+=(\"${__h:__o+8:__n}\"); __o=$((__o + 8 + __n)); done";

    /**
     * The stub, run by {@code /bin/bash} inside the sandbox. It clears the environment it was started with (bash's own
     * PWD/SHLVL/OLDPWD too) before saying it is ready; the header is read with two {@code read -N} and cut into its
     * fields by their lengths ({@link #header}).
     *
     * <p>When the call's shell is {@code /bin/bash} itself, the command runs in the stub's own shell ({@code eval})
     * instead of a second {@code exec} of bash: ~1.2 ms less per call (measured 2026-12-03: 1.7 → 0.5 ms from the
     * header to the end of {@code true} in bubblewrap). The stub then leaves exactly what a new {@code bash -c} has:
     * none of its variables, {@code SHLVL=1}, {@code PWD}, an exported unset {@code OLDPWD}, no positional parameters,
     * the command in {@code $BASH_EXECUTION_STRING} and — the stub being one line — the command's line numbers. What
     * still differs: {@code $_} before the first command, and a syntax error's prefix ({@code bash:} or
     * {@code bash: eval: line 1:} instead of {@code bash: -c: line 1:}). A call whose environment holds a variable
     * that a new bash treats specially at start (sources {@code BASH_ENV}, applies {@code SHELLOPTS}, resets
     * {@code IFS}, ...) gets the {@code exec} as before. {@code WarmStubTest} compares both with a cold
     * {@code bash -c}.
     */
    static final String STUB = String.join("; ",
            CLEAR_ENVIRONMENT,
            "printf '\\006'",
            // two reads of the pipe (read -N reads its count at once; read -d reads a pipe a byte at a time), then the
            // fields are cut out of the header by their lengths (bytes: the stub's locale is C)
            "IFS= read -r -N 8 __n && IFS= read -r -N $((10#$__n)) __h || exit 125",
            "__o=0",
            "__f=()",
            SPLIT_FIELDS,
            "[ ${#__f[@]} -ge 3 ] || exit 125",
            "__sh=${__f[0]}",
            "__cwd=${__f[1]}",
            "__cmd=${__f[2]}",
            "__env=(\"${__f[@]:3}\")",
            "unset __n __h __o __f",
            "cd -P -- \"$__cwd\" || exit 125",
            "__cwd=$PWD", // physical, as a new bash's PWD
            "exec </dev/null",
            "unset OLDPWD PWD",
            "[ ${#__env[@]} -eq 0 ] || export -- \"${__env[@]}\" || exit 125",
            "__x=1",
            "[ \"$__sh\" = /bin/bash ] || __x=",
            "for __kv in \"${__env[@]}\"; do case ${__kv%%=*} in " + String.join("|", STARTUP_VARIABLES)
                    + ") __x= ;; esac; done",
            "printf '\\002'",
            // bash's exec lowers SHLVL by one (a new bash raises it again): a call's own SHLVL reaches its shell as given
            "[ -n \"$__x\" ] || { case ${SHLVL-} in '' | *[!0-9]*) ;; *) SHLVL=$((10#$SHLVL + 1)) ;; esac; exec -- \"$__sh\" -c \"$__cmd\"; }",
            "SHLVL=1",
            "PWD=$__cwd",
            "export SHLVL PWD OLDPWD",
            // a new bash -c has the command there; it carries the command to eval, so no variable of the stub remains
            "BASH_EXECUTION_STRING=$__cmd",
            "unset __sh __cwd __cmd __env __kv __x",
            "eval \"$BASH_EXECUTION_STRING\"");

    /**
     * The stub of an entry that serves call after call (an entry into a team sandbox, whose calls share its processes
     * and {@code /tmp} anyway). It clears its environment and says it is ready as {@link #STUB} does, then loops: it
     * reads a header ({@link #header}, with the call's token first), runs the call in a forked subshell that does what
     * {@link #STUB}'s {@code exec} branch does ({@code cd}, stdin on {@code /dev/null}, exactly the call's environment,
     * the acknowledgement, {@code exec <shell> -c <command>}: the command is a new shell, as in a cold start), and when
     * the subshell has ended writes the end mark {@code NUL US cohort-end:<token>:<status> LF}. The token is never
     * exported, so the command cannot end its output early. Per call: one {@code fork} and one {@code exec}, against
     * a chain of seven program starts for an entry used once.
     */
    static final String LOOP_STUB = String.join("; ",
            CLEAR_ENVIRONMENT,
            "printf '\\006'",
            "while IFS= read -r -N 8 __n && IFS= read -r -N $((10#$__n)) __h; do __o=0",
            "__f=()",
            SPLIT_FIELDS,
            "[ ${#__f[@]} -ge 4 ] || exit 125",
            "__t=${__f[0]}",
            "__sh=${__f[1]}",
            "__cwd=${__f[2]}",
            "__cmd=${__f[3]}",
            "__env=(\"${__f[@]:4}\")",
            "unset __n __h __o __f",
            "( cd -P -- \"$__cwd\" || exit 125",
            "__cwd=$PWD", // physical, as a new bash's PWD
            "exec </dev/null",
            "unset OLDPWD PWD",
            "[ ${#__env[@]} -eq 0 ] || export -- \"${__env[@]}\" || exit 125",
            "__x=1",
            "[ \"$__sh\" = /bin/bash ] || __x=",
            "for __kv in \"${__env[@]}\"; do case ${__kv%%=*} in " + String.join("|", STARTUP_VARIABLES)
                    + ") __x= ;; esac; done",
            "printf '\\002'",
            "[ -n \"$__x\" ] || { case ${SHLVL-} in '' | *[!0-9]*) ;; *) SHLVL=$((10#$SHLVL + 1)) ;; esac; exec -- \"$__sh\" -c \"$__cmd\"; }",
            // /bin/bash: the command runs in the forked subshell itself, left as a new bash -c leaves it (as STUB
            // does); the token goes with the stub's other variables, so the command never sees it
            "SHLVL=1",
            "BASH_SUBSHELL=0",
            "PWD=$__cwd",
            "export SHLVL PWD OLDPWD",
            "BASH_EXECUTION_STRING=$__cmd",
            "unset __t __sh __cwd __cmd __env __kv __x",
            "eval \"$BASH_EXECUTION_STRING\" )",
            "printf '\\000\\037cohort-end:%s:%d\\n' \"$__t\" $?",
            "unset __t __sh __cwd __cmd __env",
            "done");

    /**
     * The header the stub reads: its length, then the fields shell, cwd, command and each {@code NAME=value} of the
     * environment, each as its length and its bytes (lengths as 8 decimal digits), encoded as the JVM encodes a
     * process's arguments and environment. The stub reads it with two {@code read -N}: a field delimited by a NUL
     * ({@code read -d ''}) is read from a pipe one byte per system call: ~600 of them per call, 0.1-0.2 ms of the
     * acknowledgement's p50 in the round benchmark (tool-runner README). {@code null} when a field holds a NUL (no
     * process can get it: a cold start refuses it the same way) or the header would not fit its 8 digits.
     */
    static byte[] header(String shell, Path cwd, Map<String, String> env, String command) {
        return header(null, shell, cwd, env, command);
    }

    /** {@link #header(String, Path, Map, String)} with {@code token} first when not {@code null} ({@link #LOOP_STUB}). */
    static byte[] header(String token, String shell, Path cwd, Map<String, String> env, String command) {
        Charset cs = nativeCharset();
        List<String> fields = new ArrayList<>(4 + env.size());
        if (token != null) {
            fields.add(token);
        }
        fields.add(shell);
        fields.add(cwd.toString());
        fields.add(command);
        env.forEach((k, v) -> fields.add(k + "=" + v));
        ByteArrayOutputStream b = new ByteArrayOutputStream(1024);
        b.writeBytes("00000000".getBytes(StandardCharsets.US_ASCII)); // the length, set below
        for (String field : fields) {
            if (field.indexOf('\0') >= 0) {
                return null;
            }
            byte[] bytes = field.getBytes(cs);
            if (bytes.length > MAX_HEADER) {
                return null;
            }
            b.writeBytes(String.format("%08d", bytes.length).getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(bytes);
        }
        byte[] out = b.toByteArray();
        int length = out.length - 8;
        if (length > MAX_HEADER) {
            return null;
        }
        System.arraycopy(String.format("%08d", length).getBytes(StandardCharsets.US_ASCII), 0, out, 0, 8);
        return out;
    }

    /** The largest header (and field) its 8-digit lengths can say. */
    static final int MAX_HEADER = 99_999_999;

    /** Every variable name, as bash words: {@code ${!A*} ... ${!z*} ${!_*}}. */
    private static String allNames() {
        StringBuilder b = new StringBuilder();
        for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_".toCharArray()) {
            b.append(b.isEmpty() ? "" : " ").append("${!").append(c).append("*}");
        }
        return b.toString();
    }

    @Inject
    ToolRunnerConfig config;
    @Inject
    MeterRegistry meters;
    @Inject
    CommandLimits limits;

    /** Calls served by a sandbox started before them. */
    final AtomicLong pooled = new AtomicLong();
    /** Calls served by a warm sandbox started for them (the pool was empty: a key's first call). */
    final AtomicLong startedForCall = new AtomicLong();
    /** Takes that found no usable warm sandbox (failed, ended, a bound directory replaced): those calls start cold. */
    final AtomicLong unusable = new AtomicLong();
    /** Takes that found every pooled sandbox still starting: the call waited for the first to get ready. */
    final AtomicLong waited = new AtomicLong();

    /** Counts (methods: tests reach the bean through its CDI proxy, not its fields). */
    long pooledCount() {
        return pooled.get();
    }

    long startedForCallCount() {
        return startedForCall.get();
    }

    long unusableCount() {
        return unusable.get();
    }

    long waitedCount() {
        return waited.get();
    }

    /**
     * Puts {@code p}, a process speaking the stub's protocol, at the head of {@code key}'s pool as its oldest sandbox,
     * ready when it writes its ready byte (tests: a sandbox still starting when a call takes it).
     */
    Warm offerFirst(Key key, Process p) {
        Warm w = new Warm(p, List.of(), List.of());
        awaitReadyByte(p, w);
        Pool pool;
        synchronized (this) {
            pool = pools.computeIfAbsent(key, Pool::new);
        }
        synchronized (pool) {
            pool.warm.addFirst(w);
        }
        return w;
    }

    @PostConstruct
    void init() {
        if (meters != null) {
            for (var e : Map.of("pooled", pooled, "started-for-call", startedForCall, "unusable", unusable).entrySet()) {
                FunctionCounter.builder("cohort.toolrunner.warm.sandbox", e.getValue(),
                        AtomicLong::get).tag("outcome", e.getKey()).register(meters);
            }
            FunctionCounter.builder("cohort.toolrunner.warm.sandbox.waited", waited,
                    AtomicLong::get)
                    .description("calls that found every pooled warm sandbox still starting"
                            + " (the call waited for the first to get ready)")
                    .register(meters);
        }
    }

    /** Access-ordered: the first entry is the least recently used pool. Guarded by {@code this}. */
    private final LinkedHashMap<Key, Pool> pools = new LinkedHashMap<>(16, 0.75f, true);
    private final ExecutorService starter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "warm-sandbox-starter");
        t.setDaemon(true);
        return t;
    });
    private volatile ScheduledExecutorService sweeper;
    private volatile boolean closed;

    /**
     * Where a warm sandbox goes.
     *
     * @param team      the team (for logs; the command line already differs per team: its HOME is bound)
     * @param command   the sandbox's command line without {@code setsid} and the stub: the sandbox prefix entering the
     *                  containment root (empty without a sandbox)
     * @param directory the directory the process is started in (the containment root)
     * @param binds     the directories bound into the sandbox, checked for replacement before use
     * @param reusable  its sandboxes run {@link #LOOP_STUB} and go back to the pool after a call that ended cleanly
     *                  (entries into a team sandbox); a pool of them is not refilled ahead: a call that finds none
     *                  starts one, which then stays
     */
    public record Key(String team, List<String> command, Path directory, List<Path> binds, boolean reusable) {
        public Key {
            Objects.requireNonNull(team);
            command = List.copyOf(command);
            Objects.requireNonNull(directory);
            binds = List.copyOf(binds);
        }

        /** A key whose sandboxes serve one call each. */
        public Key(String team, List<String> command, Path directory, List<Path> binds) {
            this(team, command, directory, binds, false);
        }
    }

    /** One pre-started sandbox, used for one call. */
    public static final class Warm implements ProcessRunner.Prestarted {
        private final Process process;
        private final long startedNanos;
        /** The last pid handed out when it said ready (0: unknown), and when that was. */
        private volatile long readyLastPid;
        private volatile long readyNanos;
        private final List<Object> fileKeys;
        private final List<Path> binds;
        private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
        private volatile String failure;
        /** Its cgroup (every process of the sandbox is in it from the start); {@code null}: none. */
        private volatile CommandCgroups.Cgroup cgroup;
        /** Where it goes back after a call when it serves call after call ({@link #LOOP_STUB}); {@code null}: it does not. */
        private volatile Consumer<Warm> home;

        private Warm(Process process, List<Path> binds, List<Object> fileKeys) {
            this.startedNanos = System.nanoTime();
            this.process = process;
            this.binds = binds;
            this.fileKeys = fileKeys;
        }

        @Override
        public Process process() {
            return process;
        }

        /**
         * The pids its processes got until it was ready: from its own pid to the last pid handed out then (across at
         * most one wrap of the pid counter, since it was ready within a second), or {@code null} when unknown.
         */
        @Override
        public ProcessRunner.PidWindow startupPids() {
            long last = readyLastPid;
            return last <= 0 || readyNanos - startedNanos > 1_000_000_000L ? null
                    : new ProcessRunner.PidWindow(process.pid(), last);
        }

        /** Ready, alive, and every bound directory is still the one it bound. */
        boolean usable() {
            return ready.getNow(false) && process.isAlive() && fileKeys.equals(fileKeys(binds));
        }

        boolean awaitReady(long millis) {
            try {
                return ready.get(millis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception e) {
                return false;
            }
        }

        /**
         * Hands the call to the stub ({@link #header}), then closes the pipe.
         */
        @Override
        public void send(String shell, Path cwd, Map<String, String> env, String command) throws IOException {
            byte[] header = header(shell, cwd, env, command);
            if (header == null) {
                // a NUL, or gigabytes: nothing is run here; the cold start answers as it does for such a call
                throw new IOException("the call cannot be put in a warm sandbox's header");
            }
            try (OutputStream out = process.getOutputStream()) {
                out.write(header);
            }
        }

        @Override
        public boolean loops() {
            return home != null;
        }

        /** Hands a call to a looping stub ({@link #LOOP_STUB}); the pipe stays open for the next one. */
        @Override
        public void sendCall(String token, String shell, Path cwd, Map<String, String> env, String command)
                throws IOException {
            byte[] header = header(token, shell, cwd, env, command);
            if (header == null) {
                throw new IOException("the call cannot be put in a warm sandbox's header");
            }
            OutputStream out = process.getOutputStream();
            out.write(header);
            out.flush();
        }

        @Override
        public void giveBack() {
            Consumer<Warm> h = home;
            if (h == null) {
                kill();
            } else {
                h.accept(this);
            }
        }

        /** Kills the sandbox's whole process group (off the caller's thread: {@code kill} is a process). */
        @Override
        public void kill() {
            long pid = process.pid();
            Thread.ofVirtual().name("warm-kill-" + pid).start(() -> {
                ProcessRunner.killGroup(pid);
                process.destroyForcibly();
                releaseCgroup();
            });
        }

        /** Its call is over (or it is discarded): what is left in its cgroup is killed and the cgroup removed. */
        @Override
        public void releaseCgroup() {
            CommandCgroups.Cgroup cg = cgroup;
            if (cg != null) {
                cg.release();
            }
        }

        String failure() {
            return failure;
        }
    }

    private static final class Pool {
        final Key key;
        final ArrayDeque<Warm> warm = new ArrayDeque<>();
        int starting;
        long lastUsedNanos = System.nanoTime();
        boolean closed;

        Pool(Key key) {
            this.key = key;
        }
    }

    public boolean enabled() {
        return config.warmSandbox().enabled() && !closed;
    }

    /**
     * A ready warm sandbox for {@code key}, or {@code null} when none could be had (the caller starts cold). Takes the
     * oldest pooled one that is ready; when every pooled one is still starting, the first of them to get ready (and
     * counts the wait); with none pooled, starts one now. Either way a replacement is started in the background.
     */
    public Warm take(Key key) {
        return take(key, true);
    }

    /**
     * As {@link #take(Key)}, but a key without a pool gets one only while fewer than its kind's cap of pools exist
     * ({@code max-entry-pools} for entries into team sandboxes, else {@code max-pools}): no pool is evicted for it
     * ({@code null}: the caller starts the command itself). Where many keys are in use at once (a team sandbox per
     * team), evicting and refilling whole pools in turn would cost more than it saves.
     */
    public Warm takeIfRoom(Key key) {
        return take(key, false);
    }

    private Warm take(Key key, boolean evict) {
        if (!enabled()) {
            return null;
        }
        Pool pool;
        List<Pool> evicted = new ArrayList<>();
        synchronized (this) {
            pool = pools.get(key);
            int cap = cap(key.reusable());
            if (pool == null && !evict && count(key.reusable()) >= cap) {
                return null;
            }
            if (pool == null) {
                pool = new Pool(key);
                pools.put(key, pool);
                evicted = over(cap, key.reusable());
            }
        }
        int capped = cap(key.reusable());
        evicted.forEach(p -> close(p, "more than " + capped + " pools (least recently used)"));
        ensureSweeper();
        // the oldest ready one; when none is ready yet, the first of them to get ready (their starts take from ~5 ms
        // to tens of ms on busy cores, so a younger one is often ready before the oldest); dead, failed or stale ones
        // are discarded
        Warm w;
        boolean discarded = false;
        boolean counted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_WAIT_MS);
        while (true) {
            List<Warm> failed = new ArrayList<>();
            List<Warm> pending;
            synchronized (pool) {
                pool.lastUsedNanos = System.nanoTime();
                w = null;
                for (Iterator<Warm> it = pool.warm.iterator(); it.hasNext() && w == null; ) {
                    Warm o = it.next();
                    if (o.ready.isDone()) {
                        it.remove();
                        if (o.ready.getNow(false)) {
                            w = o;
                        } else {
                            failed.add(o);
                        }
                    }
                }
                pending = w == null ? List.copyOf(pool.warm) : List.of();
            }
            for (Warm f : failed) {
                discard(key, f);
                discarded = true;
            }
            if (w != null) {
                if (w.usable()) {
                    break;
                }
                discard(key, w);
                discarded = true;
                continue;
            }
            if (pending.isEmpty()) {
                break; // none left: the key's first call, or the pool was taken empty by concurrent calls
            }
            if (!counted) {
                counted = true;
                waited.incrementAndGet(); // no ready one left: the pool's starts fell behind the calls
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !awaitAny(pending, left)) {
                // none got ready in time: the oldest goes, and this call starts cold
                Warm oldest = pending.get(0);
                boolean mine;
                synchronized (pool) {
                    mine = pool.warm.remove(oldest);
                }
                if (mine) {
                    discard(key, oldest);
                }
                discarded = true;
                break;
            }
        }
        boolean anotherReady;
        synchronized (pool) {
            anotherReady = pool.warm.stream().anyMatch(o -> o.ready.getNow(false));
        }
        if (key.reusable()) {
            // entries that serve call after call come back after their call: none is started ahead
        } else if (w != null && anotherReady) {
            // the next call has a sandbox already: the replacement starts once this call is answered, so its start
            // (the JVM's spawn, bubblewrap's namespace set-up) does not compete with this call for the CPU
            Pool p = pool;
            AfterResponse.defer(() -> refill(p));
        } else {
            refill(pool);
        }
        boolean fresh = w == null;
        if (fresh) {
            if (discarded) {
                return null; // the pool's were unusable: this call starts cold, the replacements warm up meanwhile
            }
            try {
                w = start(key); // the key's first call (or its pool was taken empty by concurrent calls)
            } catch (IOException e) {
                Log.warnf("team=%s warm sandbox could not be started (%s); starting cold", key.team(), e.getMessage());
                return null;
            }
            if (!w.awaitReady(READY_WAIT_MS) || !w.usable()) {
                discard(key, w);
                return null;
            }
        }
        (fresh ? startedForCall : pooled).incrementAndGet();
        return w;
    }

    /** Waits up to {@code nanos} until one of {@code ws} has said ready or failed; {@code false} on timeout. */
    private static boolean awaitAny(List<Warm> ws, long nanos) {
        try {
            CompletableFuture.anyOf(ws.stream().map(o -> o.ready).toArray(CompletableFuture[]::new))
                    .get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    private void discard(Key key, Warm w) {
        if (w.failure() != null) {
            Log.warnf("team=%s warm sandbox failed to start: %s; starting cold", key.team(), w.failure());
        } else {
            Log.debugf("team=%s warm sandbox not usable (ended, or a bound directory was replaced)", key.team());
        }
        w.kill();
        unusable.incrementAndGet();
    }

    /** Starts replacements off the latency path until the pool holds {@code size} (ready or starting). */
    private void refill(Pool pool) {
        int missing;
        synchronized (pool) {
            missing = pool.closed ? 0 : Math.max(0, config.warmSandbox().size() - pool.warm.size() - pool.starting);
            pool.starting += missing;
        }
        for (int i = 0; i < missing; i++) {
            try {
                starter.execute(() -> {
                    Warm w = null;
                    try {
                        w = start(pool.key);
                    } catch (IOException | RuntimeException e) {
                        Log.warnf("team=%s warm sandbox could not be started: %s", pool.key.team(), e.toString());
                    }
                    boolean keep;
                    synchronized (pool) {
                        pool.starting--;
                        keep = w != null && !pool.closed && !closed;
                        if (keep) {
                            pool.warm.add(w);
                        }
                    }
                    if (!keep && w != null) {
                        w.kill();
                    }
                });
            } catch (RejectedExecutionException e) {
                synchronized (pool) {
                    pool.starting--;
                }
            }
        }
    }

    /**
     * A process that speaks the stub's protocol, adopted as a warm sandbox (tests: a stub that misbehaves). Its
     * readiness is read like a started one's, and waited for, as {@link #take(Key)} waits for a pooled one's: the call's
     * reader must not start while the ready byte is still unread (it would take the ready byte for the output's first
     * byte).
     */
    static Warm adopt(Process p) {
        Warm w = new Warm(p, List.of(), List.of());
        awaitReadyByte(p, w);
        w.awaitReady(READY_WAIT_MS);
        return w;
    }

    /** Starts one warm sandbox of {@code key}; its readiness is read on a pooled thread ({@link PipeReader}). */
    Warm start(Key key) throws IOException {
        List<Object> keys = fileKeys(key.binds());
        // each warm sandbox has a cgroup of its own, its limits set before the sandbox's first process joins it
        CommandCgroups cgroups = limits == null ? null : limits.cgroups();
        CommandCgroups.Cgroup cg = cgroups == null ? null : cgroups.create();
        List<String> cmd = new ArrayList<>(key.command().size() + 12);
        cmd.add("setsid");
        if (cg != null) {
            cmd.addAll(cg.join());
        }
        cmd.addAll(key.command());
        cmd.addAll(List.of("/bin/bash", "-c", key.reusable() ? LOOP_STUB : STUB));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(key.directory().toFile()).redirectErrorStream(true);
        pb.environment().clear(); // the stub gets each call's environment in its header
        Process p;
        try {
            p = pb.start();
        } catch (IOException | RuntimeException e) {
            if (cg != null) {
                cg.release();
            }
            throw e;
        }
        Warm w = new Warm(p, key.binds(), keys);
        w.cgroup = cg;
        if (key.reusable()) {
            w.home = back -> giveBack(key, back);
        }
        awaitReadyByte(p, w);
        return w;
    }

    private static void awaitReadyByte(Process p, Warm w) {
        PipeReader.start(() -> {
            InputStream in = p.getInputStream();
            try {
                int b = in.read();
                if (b == READY) {
                    // every process of the sandbox so far (bwrap's init, the stub) has a pid up to this one
                    w.readyLastPid = ProcessRunner.lastPid();
                    w.readyNanos = System.nanoTime();
                    w.ready.complete(true);
                    return;
                }
                byte[] rest = in.readNBytes(2000);
                String said = ((b < 0 ? "" : String.valueOf((char) b)) + new String(rest, StandardCharsets.UTF_8))
                        .strip().replaceAll("\\s+", " ");
                w.failure = "exited before it was ready" + (said.isEmpty() ? "" : ": " + said);
            } catch (IOException e) {
                w.failure = e.toString();
            }
            w.ready.complete(false);
        });
    }

    /** The identity (device + inode) of each directory, {@code null} for one that is gone. */
    public static List<Object> fileKeys(List<Path> dirs) {
        List<Object> out = new ArrayList<>(dirs.size());
        for (Path d : dirs) {
            try {
                out.add(Files.readAttributes(d, BasicFileAttributes.class).fileKey());
            } catch (IOException e) {
                out.add(null);
            }
        }
        return out;
    }

    private static Charset nativeCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    private void ensureSweeper() {
        if (sweeper == null) {
            synchronized (this) {
                if (sweeper == null && !closed) {
                    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
                        Thread t = new Thread(r, "warm-sandbox-sweeper");
                        t.setDaemon(true);
                        return t;
                    });
                    long every = Math.max(1_000, Math.min(30_000, config.warmSandbox().idleTimeout().toMillis() / 2));
                    s.scheduleWithFixedDelay(() -> evictIdle(System.nanoTime()), every, every, TimeUnit.MILLISECONDS);
                    sweeper = s;
                }
            }
        }
    }

    /** The cap of pools of entries into team sandboxes ({@code reusable}) or of per-call warm sandboxes. */
    private int cap(boolean reusable) {
        return Math.max(1, reusable ? config.warmSandbox().maxEntryPools() : config.warmSandbox().maxPools());
    }

    /** How many pools of that kind exist. Guarded by {@code this}. */
    private int count(boolean reusable) {
        int n = 0;
        for (Key k : pools.keySet()) {
            n += k.reusable() == reusable ? 1 : 0;
        }
        return n;
    }

    /**
     * Removes the least recently used pools of that kind beyond {@code max} (the caller closes them); the other kind's
     * pools are left alone. Guarded by {@code this}.
     */
    private List<Pool> over(int max, boolean reusable) {
        List<Pool> out = new ArrayList<>();
        int n = count(reusable);
        Iterator<Pool> lru = pools.values().iterator();
        while (n > max && lru.hasNext()) {
            Pool p = lru.next();
            if (p.key.reusable() == reusable) {
                out.add(p);
                lru.remove();
                n--;
            }
        }
        return out;
    }

    /** Keeps the {@code max} most recently used pools of each kind, evicting the others (as a new pool beyond the cap does). */
    int evictOver(int max) {
        List<Pool> out;
        synchronized (this) {
            out = new ArrayList<>(over(max, false));
            out.addAll(over(max, true));
        }
        out.forEach(p -> close(p, "more than " + max + " pools (least recently used)"));
        return out.size();
    }

    /** Evicts every pool not used for {@code idle-timeout} as of {@code nowNanos}; returns how many. */
    int evictIdle(long nowNanos) {
        long idle = config.warmSandbox().idleTimeout().toNanos();
        List<Pool> out = new ArrayList<>();
        synchronized (this) {
            Iterator<Pool> it = pools.values().iterator();
            while (it.hasNext()) {
                Pool p = it.next();
                long last;
                synchronized (p) {
                    last = p.lastUsedNanos;
                }
                if (nowNanos - last >= idle) {
                    it.remove();
                    out.add(p);
                }
            }
        }
        out.forEach(p -> close(p, "idle for " + config.warmSandbox().idleTimeout()));
        return out.size();
    }

    /**
     * An entry whose call ended cleanly goes back to the head of its pool (the most recently used is taken first), or
     * is killed when its pool is gone or full ({@code size}), or when it is no longer usable.
     */
    private void giveBack(Key key, Warm w) {
        Pool pool;
        synchronized (this) {
            pool = pools.get(key);
        }
        boolean kept = false;
        if (pool != null && !closed && w.usable()) {
            synchronized (pool) {
                if (!pool.closed && pool.warm.size() < Math.max(1, config.warmSandbox().size())) {
                    pool.warm.addFirst(w);
                    pool.lastUsedNanos = System.nanoTime();
                    kept = true;
                }
            }
        }
        if (!kept) {
            w.kill();
        }
    }

    private void close(Pool p, String why) {
        List<Warm> ws;
        synchronized (p) {
            p.closed = true;
            ws = new ArrayList<>(p.warm);
            p.warm.clear();
        }
        ws.forEach(Warm::kill);
        Log.debugf("team=%s warm sandbox pool evicted: %s", p.key.team(), why);
    }

    /** The pools held now (keys), for tests and health. */
    synchronized List<Key> keys() {
        return List.copyOf(pools.keySet());
    }

    /** The processes of {@code key}'s pool (ready or starting), for tests; does not count as a use. */
    List<Process> processes(Key key) {
        Pool p = peek(key);
        if (p == null) {
            return List.of();
        }
        synchronized (p) {
            return p.warm.stream().map(Warm::process).toList();
        }
    }

    /** How many of {@code key}'s pooled sandboxes are ready and alive, for tests. */
    int readyCount(Key key) {
        Pool p = peek(key);
        if (p == null) {
            return 0;
        }
        synchronized (p) {
            return (int) p.warm.stream().filter(w -> w.ready.getNow(false) && w.process().isAlive()).count();
        }
    }

    private synchronized Pool peek(Key key) {
        for (Map.Entry<Key, Pool> e : pools.entrySet()) { // iterating does not change the access order
            if (e.getKey().equals(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** The processes of the warm sandboxes held now (ready or not), for tests. */
    List<Process> processes() {
        List<Pool> ps;
        synchronized (this) {
            ps = List.copyOf(pools.values());
        }
        List<Process> out = new ArrayList<>();
        for (Pool p : ps) {
            synchronized (p) {
                p.warm.forEach(w -> out.add(w.process()));
            }
        }
        return out;
    }

    @PreDestroy
    void shutdown() {
        closed = true;
        List<Pool> ps;
        synchronized (this) {
            ps = List.copyOf(pools.values());
            pools.clear();
        }
        ps.forEach(p -> close(p, "shutdown"));
        starter.shutdownNow();
        ScheduledExecutorService s = sweeper;
        if (s != null) {
            s.shutdownNow();
        }
    }

    /** {@code pools} as {@code team -> count}, for logs. */
    synchronized Map<String, Integer> summary() {
        Map<String, Integer> m = new LinkedHashMap<>();
        pools.keySet().forEach(k -> m.merge(k.team(), 1, Integer::sum));
        return m;
    }
}

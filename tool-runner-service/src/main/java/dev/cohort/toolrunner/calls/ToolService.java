package dev.cohort.toolrunner.calls;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.BadRequest;
import dev.cohort.toolrunner.Busy;
import dev.cohort.toolrunner.CallPhases;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.mcp.McpException;
import dev.cohort.toolrunner.mcp.McpHost;
import dev.cohort.toolrunner.Conflict;
import dev.cohort.toolrunner.persistence.ToolCallStore;
import dev.cohort.toolrunner.remote.RemoteSandboxes;
import dev.cohort.toolrunner.remote.SandboxBinding;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.workspace.Workspaces;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.TreeMap;

/**
 * Executes one tool call, at most once per (team, agent, callId).
 *
 * <p>Sequence: validate the request (a malformed one is the host's bug → 400) → record the call as {@code running}
 * with one conditional insert → if the id was already recorded, answer from the record (or join the execution still
 * in flight here; a call interrupted by a restart, or started on another replica, is answered "outcome unknown", never
 * re-run) → wait for a slot of the bounded pool → resolve the cwd → run the tool, turning {@link ToolError}s into
 * model-visible results → store the result.
 */
@ApplicationScoped
public class ToolService {
    /** Call ids are the model's tool-call ids: short opaque strings. */
    private static final Pattern CALL_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,200}");

    @Inject
    ToolRunnerConfig config;
    @Inject
    ToolRegistry registry;
    @Inject
    Workspaces workspaces;
    @Inject
    ToolCallStore calls;
    @Inject
    MeterRegistry meters;
    @Inject
    SandboxBinding binding;
    @Inject
    RemoteSandboxes remote;
    @Inject
    McpHost mcp;

    private Semaphore slots;
    private CallPhases phases;
    /** Stores results after the answer was sent; virtual threads, since each just waits on the database. */
    private final ExecutorService recorder = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, CompletableFuture<ToolCallResult>> inFlight = new ConcurrentHashMap<>();

    @PostConstruct
    void init() {
        slots = new Semaphore(config.maxConcurrentCalls(), true);
        phases = new CallPhases(meters);
    }

    /** Execution slots free now (tests: a runaway command must not keep one). */
    public int freeSlots() {
        return slots.availablePermits();
    }

    void onStart(@Observes StartupEvent ev) throws SQLException {
        if (config.role() != ToolRunnerConfig.Role.RUNNER) {
            // a sandbox has no journal (its control half keeps it); a control half runs nothing itself, and its
            // replicas' calls in flight are each answered by the sandbox that ran them
            if (config.role() == ToolRunnerConfig.Role.SANDBOX) {
                sweepOldOutputs();
            }
            return;
        }
        int n = calls.markInterrupted(config.instanceId(), ToolCallResult.failure(
                "this call was running when the tool runner restarted; its outcome is unknown and it is not run again"
                        + " (rule: at-most-once). Check the workspace before retrying with a new call.", 0));
        if (n > 0) {
            Log.warnf("%d tool call(s) of instance %s were interrupted by a restart", n, config.instanceId());
        }
        sweepOldOutputs();
    }

    /** Deletes stored outputs older than {@code output-retention}: they may hold secrets and grow without bound. */
    void sweepOldOutputs() {
        Path teams = workspaces.stateDir().resolve("teams");
        long cutoff = System.currentTimeMillis() - config.outputRetention().toMillis();
        if (!Files.isDirectory(teams)) {
            return;
        }
        int[] deleted = {0};
        try (var all = Files.walk(teams, 3)) {
            all.filter(p -> p.getParent() != null && p.getParent().getFileName().toString().equals("outputs"))
                    .filter(p -> {
                        try {
                            return Files.isRegularFile(p)
                                    && Files.getLastModifiedTime(p).toMillis() < cutoff;
                        } catch (IOException e) {
                            return false;
                        }
                    }).forEach(p -> {
                        try {
                            Files.deleteIfExists(p);
                            deleted[0]++;
                        } catch (IOException e) {
                            Log.warnf("cannot delete old output %s: %s", p, e.toString());
                        }
                    });
        } catch (IOException e) {
            Log.warnf("cannot sweep old outputs: %s", e.toString());
        }
        if (deleted[0] > 0) {
            Log.infof("deleted %d stored outputs older than %s", deleted[0], config.outputRetention());
        }
    }


    public ToolCallResult call(String name, ToolCallRequest req) throws SQLException, InterruptedException {
        return call(name, req, 0);
    }

    /** {@code arrivedNanos}: when the HTTP request arrived ({@code System.nanoTime()}, 0 = unknown), for the timers. */
    public ToolCallResult call(String name, ToolCallRequest req, long arrivedNanos) throws SQLException, InterruptedException {
        long[] marks = CallPhases.begin();
        boolean ran = false;
        try {
            ToolCallResult r = run(name, req);
            ran = marks[CallPhases.STARTED] != 0;
            return r;
        } finally {
            phases.end(marks, ran && "bash".equals(name), arrivedNanos);
        }
    }

    private ToolCallResult run(String name, ToolCallRequest req) throws SQLException, InterruptedException {
        validate(req);
        return switch (config.role()) {
            case RUNNER -> runHere(name, req, true);
            case CONTROL -> {
                ToolCallRequest sent = req;
                if (req.mcp() != null) {
                    // the pod holds none of this runner's variables: the server goes there with them read here
                    try {
                        sent = new ToolCallRequest(req.team(), req.agent(), req.callId(), req.cwd(), req.args(),
                                req.readOnly(), mcp.resolved(req.mcp()));
                    } catch (McpException e) {
                        yield ToolCallResult.failure(e.getMessage(), 0);
                    }
                }
                acquireSlot();
                try {
                    yield journaled(name, sent, null);
                } finally {
                    slots.release();
                }
            }
            case SANDBOX -> runInSandbox(name, req);
        };
    }

    /**
     * A sandbox agent runs what its control half sends, for the team that bound it only; the control half journaled
     * the call and sends it once, so nothing is journaled here.
     */
    private ToolCallResult runInSandbox(String name, ToolCallRequest req) throws SQLException, InterruptedException {
        String team = binding.team().orElseThrow(() -> new Conflict("this sandbox is not bound to a team"));
        if (!team.equals(req.team())) {
            throw new Conflict("this sandbox serves team " + team + ", not " + req.team());
        }
        return runHere(name, req, false);
    }

    /** Locates the call's workspace and cwd and runs it in this process: under the journal when {@code journal}. */
    private ToolCallResult runHere(String name, ToolCallRequest req, boolean journal)
            throws SQLException, InterruptedException {
        Workspaces.Location loc;
        try {
            loc = workspaces.locate(req.team(), req.cwd());
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        } catch (ToolError e) {
            // the workspace failed its check (a link swapped in): the model sees the rule; nothing ran
            Log.warnf("team=%s agent=%s call=%s refused: %s", req.team(), req.agent(), req.callId(), e.getMessage());
            return ToolCallResult.failure(e.modelMessage(), 0);
        }
        CallPhases.mark(CallPhases.LOCATED);
        acquireSlot();
        CallPhases.mark(CallPhases.SLOT);
        try {
            return journal ? journaled(name, req, loc) : execute(name, req, loc);
        } finally {
            slots.release();
        }
    }

    /**
     * The call under the at-most-once journal: run where this role runs calls (here at {@code loc}, or in the team's
     * sandbox pod when {@code loc} is {@code null}), recorded off the latency path.
     */
    private ToolCallResult journaled(String name, ToolCallRequest req, Workspaces.Location loc)
            throws SQLException, InterruptedException {
        String hash = argsHash(name, req);
        CallPhases.mark(CallPhases.HASHED);
        String key = req.team() + "/" + req.agent() + "/" + req.callId();
        // a tool without side effects (it says so: isMutating() is false) can run twice harmlessly, so it needs no
        // at-most-once journal entry first
        if (registry.find(name).map(t -> !t.isMutating()).orElse(false)) {
            // reading twice changes nothing, so a read is not journaled before it runs (one database round trip
            // less on the hottest path); it is still recorded, off the latency path
            ToolCallResult result = dispatch(name, req, loc);
            recorder.execute(() -> {
                try {
                    boolean first = calls.record(req.team(), req.agent(), req.callId(), name, hash, req.cwd(),
                            config.instanceId(), result);
                    // a repeated read id keeps the first record; counted so the outcome is observable
                    meters.counter("cohort.toolrunner.read.records", "outcome", first ? "recorded" : "already-recorded")
                            .increment();
                } catch (SQLException e) {
                    Log.errorf(e, "team=%s agent=%s call=%s read not recorded", req.team(), req.agent(), req.callId());
                }
            });
            return result;
        }
        if (!calls.claim(req.team(), req.agent(), req.callId(), name, hash, req.cwd(), config.instanceId())) {
            return replay(name, req, hash, key);
        }
        CallPhases.mark(CallPhases.JOURNALED);
        CompletableFuture<ToolCallResult> mine = new CompletableFuture<>();
        inFlight.put(key, mine);
        ToolCallResult result;
        try {
            result = dispatch(name, req, loc);
            mine.complete(result);
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            inFlight.remove(key);
            throw e;
        }
        // the result is stored off the latency path; until it is, a repeated call joins the in-flight entry
        recorder.execute(() -> {
            try {
                recordResult(req, result);
            } finally {
                inFlight.remove(key);
            }
        });
        return result;
    }

    /** Waits for an execution slot up to {@code queue-timeout}; {@link Busy} (503) when none came free. */
    private void acquireSlot() throws InterruptedException {
        if (!slots.tryAcquire(config.queueTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
            throw new Busy("all " + config.maxConcurrentCalls() + " execution slots stayed busy for "
                    + config.queueTimeout().toSeconds() + " s");
        }
    }

    /** Runs the call here at {@code loc}, or ({@code null}) in the team's sandbox pod. */
    private ToolCallResult dispatch(String name, ToolCallRequest req, Workspaces.Location loc) {
        return loc != null ? execute(name, req, loc) : remote.call(name, req);
    }

    /** How long a result the database refused is retried before the call is left as running (no result). */
    static final Duration RECORD_PATIENCE = Duration.ofMinutes(10);

    /**
     * Stores a finished call's result, retrying a refused write (a busy pool, a database restart) with backoff for
     * {@link #RECORD_PATIENCE}: a result that ran but was never stored would leave its call "already being executed"
     * for good, so a retried call (the agent's host resuming after a crash) could neither run it nor learn its result.
     * Until it is stored, a repeated call of this runner is answered from the in-flight entry.
     */
    private void recordResult(ToolCallRequest req, ToolCallResult result) {
        long deadline = System.nanoTime() + RECORD_PATIENCE.toNanos();
        long backoffMs = 50;
        for (int attempt = 1; ; attempt++) {
            try {
                calls.finish(req.team(), req.agent(), req.callId(), result);
                if (attempt > 1) {
                    Log.infof("team=%s agent=%s call=%s result recorded at attempt %d", req.team(), req.agent(),
                            req.callId(), attempt);
                }
                return;
            } catch (SQLException | RuntimeException e) {
                meters.counter("cohort.toolrunner.record.retries").increment();
                if (System.nanoTime() > deadline) {
                    Log.errorf(e, "team=%s agent=%s call=%s result not recorded after %d attempts; the call stays"
                            + " running in the record and is not run again", req.team(), req.agent(), req.callId(), attempt);
                    return;
                }
                Log.warnf("team=%s agent=%s call=%s result not recorded (attempt %d, retrying in %d ms): %s",
                        req.team(), req.agent(), req.callId(), attempt, backoffMs, e.toString());
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                Log.errorf("team=%s agent=%s call=%s result not recorded: interrupted (shutting down)", req.team(),
                        req.agent(), req.callId());
                return;
            }
            backoffMs = Math.min(backoffMs * 2, 5_000);
        }
    }

    private ToolCallResult replay(String name, ToolCallRequest req, String hash, String key)
            throws SQLException, InterruptedException {
        CompletableFuture<ToolCallResult> running = inFlight.get(key);
        if (running != null) {
            try {
                return running.get(config.bash().maxTimeout().toMillis() + 60_000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // fall through to the record
            }
        }
        Optional<ToolCallStore.Recorded> rec = calls.find(req.team(), req.agent(), req.callId());
        if (rec.isEmpty()) {
            throw new IllegalStateException("call " + key + " vanished from the record");
        }
        ToolCallStore.Recorded r = rec.get();
        if (!r.tool().equals(name) || !r.argsHash().equals(hash)) {
            throw new Conflict("callId '" + req.callId() + "' was already used by agent " + req.agent()
                    + " for a different call (" + r.tool() + "); call ids must be unique per team and agent");
        }
        if (r.result() != null) {
            Log.debugf("team=%s agent=%s call=%s answered from the record", req.team(), req.agent(), req.callId());
            return r.result();
        }
        if (!config.instanceId().equals(r.instanceId())) {
            // another replica claimed it: it is still running there, or that replica died mid-call (its next start
            // marks it interrupted). Either way its outcome is not known here, and running it here could run it twice
            Log.warnf("team=%s agent=%s call=%s started on replica %s, not run again here", req.team(), req.agent(),
                    req.callId(), r.instanceId());
            return ToolCallResult.failure("this call was started on tool runner replica " + r.instanceId()
                    + "; its outcome is unknown here and it is not run again (rule: at-most-once). Check the workspace"
                    + " before retrying with a new call.", 0);
        }
        // recorded as running by this instance but not running here: its result is still being stored, or it is stuck;
        // do not run it twice
        return ToolCallResult.failure("call " + req.callId() + " is already being executed and has no result yet;"
                + " it is not run twice (rule: at-most-once)", 0);
    }

    private ToolCallResult execute(String name, ToolCallRequest req, Workspaces.Location loc) {
        if (req.mcp() != null) {
            return executeMcp(name, req, loc);
        }
        long t0 = System.nanoTime();
        String outcome = "ok";
        ToolCallResult r;
        Optional<Tool> tool = registry.find(name);
        if (tool.isEmpty()) {
            outcome = "error";
            r = ToolCallResult.failure("unknown tool '" + name + "'; the tool runner has " + registry.names()
                    + " (rule: unknown-tool)", 0);
        } else {
            ToolContext ctx = new ToolContext(req.team(), req.agent(), req.callId(), loc.workspace(), loc.root(),
                    loc.cwd(), loc.worktree(), req.isReadOnly(), loc.others());
            try {
                if (ctx.readOnly() && !tool.get().runsUnderReadOnlyMounts()) {
                    throw new ToolError("plan-mode", "the agent works read-only (its team is in plan mode): '" + name
                            + "' would change the workspace and is not run");
                }
                r = tool.get().execute(ctx, new Args(req.args(), tool.get().arguments()));
                if (r.error() != null) {
                    outcome = "error";
                }
            } catch (ToolError e) {
                outcome = "error";
                r = ToolCallResult.failure(e.modelMessage(), 0);
            } catch (IOException | UncheckedIOException e) {
                outcome = "error";
                r = ToolCallResult.failure("I/O error: " + e.getMessage() + " (rule: io-error)", 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome = "failure";
                r = ToolCallResult.failure("the call was interrupted (rule: interrupted)", 0);
            } catch (Exception e) {
                outcome = "failure";
                Log.errorf(e, "team=%s agent=%s call=%s tool %s failed", req.team(), req.agent(), req.callId(), name);
                r = ToolCallResult.failure("the tool failed inside the runner: " + e + " (rule: internal-error)", 0);
            }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        Log.debugf("team=%s agent=%s call=%s tool=%s exit=%s durationMs=%d error=%s", req.team(), req.agent(),
                req.callId(), name, r.exitCode(), ms, r.error() != null);
        Timer.builder("cohort.toolrunner.calls").tag("tool", tool.isPresent() ? name : "unknown").tag("outcome", outcome)
                .register(meters).record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        return new ToolCallResult(r.output(), r.error(), r.exitCode(), r.truncated(), r.outputRef(), ms, r.stderr());
    }

    /** A tool of the call's MCP server ({@code mcp__<server>__<tool>}), run by the team's {@link McpHost}. */
    private ToolCallResult executeMcp(String name, ToolCallRequest req, Workspaces.Location loc) {
        String prefix = "mcp__" + req.mcp().name() + "__";
        if (!name.startsWith(prefix) || name.length() == prefix.length()) {
            throw new BadRequest("tool '" + name + "' is not a tool of MCP server '" + req.mcp().name() + "' (" + prefix
                    + "<tool>)");
        }
        ToolContext ctx = new ToolContext(req.team(), req.agent(), req.callId(), loc.workspace(), loc.root(),
                loc.cwd(), loc.worktree(), req.isReadOnly(), loc.others());
        return mcp.call(ctx, req.mcp(), name.substring(prefix.length()), req.args());
    }

    private static void validate(ToolCallRequest req) {
        if (req == null) {
            throw new BadRequest("request body is missing");
        }
        if (!Ids.isTeam(req.team())) {
            throw new BadRequest("team must match " + Ids.TEAM.pattern() + " (got '" + req.team() + "')");
        }
        if (!Ids.isAgent(req.agent())) {
            throw new BadRequest("agent must match " + Ids.AGENT.pattern() + " (got '" + req.agent() + "')");
        }
        if (req.callId() == null || !CALL_ID.matcher(req.callId()).matches()) {
            throw new BadRequest("callId must match " + CALL_ID.pattern() + " (got '" + req.callId() + "')");
        }
        if (req.cwd() != null && (req.cwd().length() > 1024 || req.cwd().indexOf('\0') >= 0)) {
            throw new BadRequest("cwd is not a usable directory name");
        }
    }

    private static String argsHash(String name, ToolCallRequest req) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(name.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(Json.write(new TreeMap<>(req.args())).getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(String.valueOf(req.cwd()).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

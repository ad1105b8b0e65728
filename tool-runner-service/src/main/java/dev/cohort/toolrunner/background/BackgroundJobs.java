package dev.cohort.toolrunner.background;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.payload.BackgroundDone;
import dev.cohort.core.protocol.payload.BackgroundFinished;
import dev.cohort.core.protocol.payload.BackgroundStarted;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import dev.cohort.platform.kafka.KafkaEventSink;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.persistence.BackgroundJobStore;
import dev.cohort.toolrunner.process.OutputCapture;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.sandbox.CommandLauncher;
import dev.cohort.toolrunner.sandbox.CommandLimits;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.OutputStore;
import dev.cohort.toolrunner.workspace.ToolContext;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.UUID;

/**
 * Background jobs: a slow command runs on its own thread with its own (long) timeout and the
 * whole output kept in a log; the call returns {@code bg_<id>} at once. Its completion ({@code completed},
 * {@code failed}, {@code timed_out} or {@code cancelled}, exit code, duration, first characters, output reference)
 * is stored and published as a {@code background_done} message on the owning agent's inbox topic, which also wakes
 * an idle agent. A job that was running when the runner stopped is reported {@code failed} at the next start.
 * Unacknowledged notifications are retried until the broker takes them.
 *
 * <p>Cancel: a job is registered here (as a {@link Job}) before its thread starts, so a cancel that arrives before
 * the process exists is recorded on the job and wins: the process is never started. A cancel that arrives later kills
 * the process group. Either way the cancel waits (bounded) until the job thread has stored the final state, and the
 * job leaves the registry only after that, so the answer shows {@code cancelled}.
 */
@ApplicationScoped
public class BackgroundJobs {
    /** How often unacknowledged completion messages are retried. */
    private static final Duration RETRY_EVERY = Duration.ofSeconds(10);
    /** Job ids as {@link #start} makes them ({@code bg_} + hex), with room for older or hand-made ones. */
    private static final Pattern JOB_ID = Pattern.compile("bg_[A-Za-z0-9_-]{1,64}");

    @Inject
    ToolRunnerConfig config;
    @Inject
    BackgroundJobStore store;
    /** Looked up when first used: a team sandbox, which announces nothing itself, never makes a Kafka client. */
    @Inject
    Instance<AgentMessagePublisher> publisher;
    @Inject
    Instance<KafkaEventSink> events;
    @Inject
    CommandLauncher launcher;
    @Inject
    OutputStore outputs;
    @Inject
    CommandLimits limits;

    /** Jobs of this instance whose end is not stored yet; an entry exists from before the thread starts. */
    private final Map<String, Job> running = new ConcurrentHashMap<>();
    /** Test seam: runs on the job thread just before it decides whether to launch; {@code null} in production. */
    private volatile Consumer<String> beforeLaunch;
    private final Map<String, Boolean> inFlightNotifications = new ConcurrentHashMap<>();
    private ScheduledExecutorService retrier;

    void onStart(@Observes StartupEvent ev) {
        if (config.role() == ToolRunnerConfig.Role.CONTROL) {
            return; // jobs run in the team sandbox pods; RemoteSandboxes announces them
        }
        recoverInterrupted();
        if (announcedByControl()) {
            return;
        }
        retrier = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("bg-notify").unstarted(r));
        retrier.scheduleWithFixedDelay(this::renotify, RETRY_EVERY.toMillis(), RETRY_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (retrier != null) {
            retrier.shutdownNow();
        }
        running.values().forEach(Job::cancel);
    }

    /** Jobs of this instance left {@code running} by a previous life are failed and announced. Returns how many. */
    private int recoverInterrupted() {
        try {
            var lost = store.failRunning(config.instanceId(),
                    "the tool runner restarted while the job was running; its outcome is unknown");
            for (BackgroundJob j : lost) {
                Log.warnf("team=%s agent=%s call=%s background job %s was running at restart: reported failed",
                        j.team(), j.agent(), j.callId(), j.id());
                notifyDone(j);
            }
            return lost.size();
        } catch (SQLException e) {
            Log.errorf(e, "cannot recover background jobs of instance %s", config.instanceId());
            return 0;
        }
    }

    /** Starts {@code command} in the background for the calling agent; returns the job id. */
    public String start(ToolContext ctx, String command, Duration timeout) throws SQLException {
        if (store.countRunning(ctx.team()) >= config.background().maxRunningPerTeam()) {
            throw new ToolError("background-limit", "team " + ctx.team() + " already has "
                    + config.background().maxRunningPerTeam() + " background jobs running; wait for one to finish");
        }
        String id = "bg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        String ref = OutputStore.ref(id);
        store.insert(id, ctx.team(), ctx.agent(), ctx.callId(), command, ctx.display(ctx.cwd()), ref,
                config.instanceId());
        ProcessRunner.Spec spec = launcher.spec(ctx, command, timeout);
        OutputCapture capture = new OutputCapture(config.background().summaryChars(), outputs.file(ctx.team(), id), true)
                .storeAtMost(limits.values().outputSize());
        Log.infof("team=%s agent=%s call=%s background job %s started", ctx.team(), ctx.agent(), ctx.callId(), id);
        if (!announcedByControl()) {
            events.get().emit(startedEvent(ctx.team(), ctx.agent(), id, ctx.callId(), command));
        }
        Job job = new Job();
        running.put(id, job);
        Thread.ofVirtual().name("bg-" + id).start(() -> runJob(id, job, ctx, spec, capture));
        return id;
    }

    private void runJob(String id, Job job, ToolContext ctx, ProcessRunner.Spec spec, OutputCapture capture) {
        String status;
        Integer exit = null;
        String error = null;
        long ms = 0;
        long t0 = System.nanoTime();
        try {
            var hook = beforeLaunch;
            if (hook != null) {
                hook.accept(id);
            }
            ProcessRunner.Outcome o = job.cancelled() ? null : ProcessRunner.run(spec, capture, job::attach);
            if (o == null) {
                // cancelled before the process existed: it is never started
                capture.close();
                status = "cancelled";
                error = "cancelled before it started";
            } else if (o.cancelled()) {
                ms = o.durationMs();
                exit = o.exitCode();
                status = "cancelled";
                error = "cancelled";
            } else if (o.timedOut()) {
                ms = o.durationMs();
                status = "timed_out";
                error = "timed out after " + spec.timeout().toSeconds() + " s; the process group was killed";
            } else if (capture.limitReached()) {
                ms = o.durationMs();
                status = "failed";
                error = CommandLimits.outputLimitError(capture.storeLimit());
            } else {
                ms = o.durationMs();
                exit = o.exitCode();
                status = o.exitCode() == 0 ? "completed" : "failed";
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            status = "failed";
            error = "could not run: " + e.getMessage();
            ms = (System.nanoTime() - t0) / 1_000_000;
            capture.close();
        }
        String summary = capture.head(config.background().summaryChars());
        try {
            if (store.finish(id, status, exit, error, summary, ms)) {
                Log.infof("team=%s agent=%s call=%s background job %s %s exit=%s durationMs=%d", ctx.team(),
                        ctx.agent(), ctx.callId(), id, status, exit, ms);
            }
        } catch (SQLException e) {
            Log.errorf(e, "team=%s call=%s cannot record the end of background job %s", ctx.team(), ctx.callId(), id);
        } finally {
            // only now: a cancel waiting for this job reads the state just stored
            running.remove(id);
            job.ended.countDown();
        }
        try {
            store.find(id).ifPresent(this::notifyDone);
        } catch (SQLException e) {
            Log.errorf(e, "team=%s call=%s cannot announce the end of background job %s", ctx.team(), ctx.callId(), id);
        }
    }

    /** The job's state, if it exists. */
    public Optional<BackgroundJob> find(String id) throws SQLException {
        return store.find(id);
    }

    /**
     * The job {@code jobId} if it belongs to the calling agent (team and agent from the host). An unknown id and
     * another agent's or team's job get the same model-visible error, so the answer tells nothing about the others.
     */
    public BackgroundJob findOwn(ToolContext ctx, String jobId) throws SQLException {
        String id = jobId == null ? "" : jobId.strip();
        if (id.startsWith(OutputStore.SCHEME)) {
            id = id.substring(OutputStore.SCHEME.length()); // the model may pass the outputRef it was given
        }
        if (!JOB_ID.matcher(id).matches()) {
            throw ToolError.badArgument("job_id must look like bg_<letters and digits> (got '" + jobId + "')");
        }
        Optional<BackgroundJob> job = store.find(id);
        if (job.isEmpty() || !job.get().team().equals(ctx.team()) || !job.get().agent().equals(ctx.agent())) {
            throw new ToolError("background-owner", "you (" + ctx.agent() + ") have no background job " + id
                    + "; an agent can only see and cancel the jobs it started");
        }
        return job.get();
    }

    /** A job as the model reads it: status, exit code, duration, error, first output, where the whole output is. */
    public static String describe(BackgroundJob j) {
        StringBuilder sb = new StringBuilder("Background job ").append(j.id()).append(": ").append(j.status());
        if (j.exitCode() != null) {
            sb.append(" (exit code ").append(j.exitCode()).append(')');
        }
        if ("running".equals(j.status())) {
            if (j.startedAt() != null) {
                sb.append(" since ").append(j.startedAt());
            }
        } else if (j.durationMs() != null) {
            sb.append(" after ").append(j.durationMs()).append(" ms");
        }
        if (j.error() != null) {
            sb.append(": ").append(j.error());
        }
        sb.append("\nCommand: ").append(j.command());
        if (j.summary() != null && !j.summary().isEmpty()) {
            sb.append("\nFirst output:\n").append(j.summary());
            if (!j.summary().endsWith("\n")) {
                sb.append('\n');
            }
        } else {
            sb.append('\n');
        }
        sb.append("running".equals(j.status()) ? "Output so far" : "Whole output").append(": read_file path=\"")
                .append(j.outputRef()).append('"');
        return sb.toString();
    }

    /**
     * Cancels a job of this instance: before its process started, it never starts; while it runs, its process group
     * is killed. Waits (at most {@code background.cancel-wait}) until the end is stored, then returns the state.
     */
    public Optional<BackgroundJob> cancel(String id) throws SQLException {
        Job job = running.get(id);
        if (job != null) {
            job.cancel();
            try {
                if (!job.ended.await(config.background().cancelWait().toMillis(), TimeUnit.MILLISECONDS)) {
                    Log.warnf("background job %s was cancelled but its end was not stored within %s", id,
                            config.background().cancelWait());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return store.find(id);
    }

    /** Sets the test seam run on each job thread before it decides whether to launch ({@code null} removes it). */
    void beforeLaunch(Consumer<String> hook) {
        beforeLaunch = hook;
    }

    /** {@code true} while a cancel of job {@code id} is recorded here but its end is not stored yet (tests). */
    boolean cancelRequested(String id) {
        Job job = running.get(id);
        return job != null && job.cancelled();
    }

    /**
     * One job of this instance until its end is stored: the cancel flag and the process handle are set under one
     * lock, so a cancel either finds the handle (and kills it) or leaves the flag for the launch (which then kills the
     * process it just started, or never starts it).
     */
    private static final class Job {
        private final CountDownLatch ended = new CountDownLatch(1);
        private ProcessRunner.Handle handle;
        private boolean cancelled;

        synchronized void cancel() {
            cancelled = true;
            if (handle != null) {
                handle.cancel();
            }
        }

        synchronized boolean cancelled() {
            return cancelled;
        }

        synchronized void attach(ProcessRunner.Handle h) {
            handle = h;
            if (cancelled) {
                h.cancel();
            }
        }
    }

    /**
     * {@code true} in a team sandbox pod: it reaches no broker, so its control half fetches the jobs to announce
     * ({@code GET /internal/v1/sandbox/notices}), publishes them and acknowledges each; a job stays unannounced here
     * until then.
     */
    private boolean announcedByControl() {
        return config.role() == ToolRunnerConfig.Role.SANDBOX;
    }

    /** The event of a job's start. */
    public static Event startedEvent(String team, String agent, String id, String callId, String command) {
        return Event.of(team, agent, new BackgroundStarted(id, callId, command));
    }

    /** The event of a job's end. */
    public static Event finishedEvent(BackgroundJob j) {
        return Event.of(j.team(), j.agent(), new BackgroundFinished(j.id(), j.status(), j.exitCode(), j.durationMs()));
    }

    /**
     * The {@code background_done} message to the job's agent: from the runner acting for the agent (the agent gets
     * the news of its own job), with a stable id, so a retried notification is the same message and consumers' dedupe
     * on id drops the copy.
     */
    public static AgentMessage doneMessage(BackgroundJob j) {
        BackgroundDone meta = new BackgroundDone(j.id(), j.callId(), j.status(), j.exitCode(), j.durationMs(), j.outputRef(),
                j.command(), j.error());
        String content = "Background job " + j.id() + " " + j.status()
                + (j.exitCode() != null ? " (exit code " + j.exitCode() + ")" : "")
                + (j.error() != null ? ": " + j.error() : "")
                + ". Command: " + j.command() + "\nFirst output:\n" + (j.summary() == null ? "" : j.summary())
                + "\nWhole output: read_file path=\"" + j.outputRef() + "\"";
        return AgentMessage.of("background_done-" + j.id(), j.team(), "tool-runner", j.agent(), content, meta,
                Instant.now());
    }

    private void notifyDone(BackgroundJob j) {
        if (announcedByControl()) {
            return;
        }
        if (inFlightNotifications.putIfAbsent(j.id(), Boolean.TRUE) != null) {
            return;
        }
        AgentMessage m = doneMessage(j);
        publisher.get().send(m).whenComplete((v, t) -> {
            if (t != null) {
                inFlightNotifications.remove(j.id());
                Log.warnf("team=%s agent=%s background_done for %s not published yet (will retry): %s", j.team(),
                        j.agent(), j.id(), t.toString());
                return;
            }
            try {
                store.markNotified(j.id());
            } catch (SQLException e) {
                Log.warnf("team=%s cannot mark %s notified: %s", j.team(), j.id(), e.toString());
            } finally {
                inFlightNotifications.remove(j.id());
            }
        });
        events.get().emit(finishedEvent(j));
    }

    private void renotify() {
        try {
            store.unnotified().forEach(this::notifyDone);
        } catch (Exception e) {
            Log.warnf("background notification retry failed: %s", e.toString());
        }
    }
}

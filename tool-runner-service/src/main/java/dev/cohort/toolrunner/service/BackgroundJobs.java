package dev.cohort.toolrunner.service;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.messaging.InboxPublisher;
import dev.cohort.toolrunner.persistence.BackgroundJobStore;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Background jobs (s13, gaps 28–32 fixed): a slow command runs on its own thread with its own (long) timeout and the
 * whole output kept in a log; the call returns {@code bg_<id>} at once. Its completion ({@code completed},
 * {@code failed}, {@code timed_out} or {@code cancelled}, exit code, duration, first characters, output reference)
 * is stored and published as a {@code background_done} message on the owning agent's inbox topic, which also wakes
 * an idle agent. A job that was running when the runner stopped is reported {@code failed} at the next start.
 * Unacknowledged notifications are retried until the broker takes them.
 */
@ApplicationScoped
public class BackgroundJobs {
    /** How often unacknowledged completion messages are retried. */
    private static final Duration RETRY_EVERY = Duration.ofSeconds(10);

    @Inject
    ToolRunnerConfig config;
    @Inject
    BackgroundJobStore store;
    @Inject
    InboxPublisher publisher;
    @Inject
    CommandLauncher launcher;
    @Inject
    OutputStore outputs;

    private final Map<String, ProcessRunner.Handle> running = new ConcurrentHashMap<>();
    private final Map<String, Boolean> inFlightNotifications = new ConcurrentHashMap<>();
    private ScheduledExecutorService retrier;

    void onStart(@Observes StartupEvent ev) {
        recoverInterrupted();
        retrier = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("bg-notify").unstarted(r));
        retrier.scheduleWithFixedDelay(this::renotify, RETRY_EVERY.toMillis(), RETRY_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (retrier != null) {
            retrier.shutdownNow();
        }
        running.values().forEach(ProcessRunner.Handle::cancel);
    }

    /** Jobs of this instance left {@code running} by a previous life are failed and announced. Returns how many. */
    public int recoverInterrupted() {
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
        OutputCapture capture = new OutputCapture(config.background().summaryChars(), outputs.file(ctx.team(), id), true);
        Log.infof("team=%s agent=%s call=%s background job %s started", ctx.team(), ctx.agent(), ctx.callId(), id);
        publisher.event(Event.of(ctx.team(), ctx.agent(), EventType.BACKGROUND_STARTED, Event.newData()
                .put("id", id).put("callId", ctx.callId()).put("command", command)));
        Thread.ofVirtual().name("bg-" + id).start(() -> runJob(id, ctx, spec, capture));
        return id;
    }

    private void runJob(String id, ToolContext ctx, ProcessRunner.Spec spec, OutputCapture capture) {
        String status;
        Integer exit = null;
        String error = null;
        long ms = 0;
        long t0 = System.nanoTime();
        try {
            ProcessRunner.Outcome o = ProcessRunner.run(spec, capture, h -> running.put(id, h));
            ms = o.durationMs();
            exit = o.exitCode();
            if (o.cancelled()) {
                status = "cancelled";
                error = "cancelled";
            } else if (o.timedOut()) {
                status = "timed_out";
                error = "timed out after " + spec.timeout().toSeconds() + " s; the process group was killed";
            } else {
                status = o.exitCode() == 0 ? "completed" : "failed";
            }
        } catch (Exception e) {
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
            store.find(id).ifPresent(this::notifyDone);
        } catch (SQLException e) {
            Log.errorf(e, "team=%s call=%s cannot record the end of background job %s", ctx.team(), ctx.callId(), id);
        } finally {
            running.remove(id); // only once the end is stored: cancel() waits for this and answers the final state
        }
    }

    /** The job's state, if it exists. */
    public Optional<BackgroundJob> find(String id) throws SQLException {
        return store.find(id);
    }

    /** Kills a running job's process group; its completion is then reported as {@code cancelled}. */
    public Optional<BackgroundJob> cancel(String id) throws SQLException {
        ProcessRunner.Handle h = running.get(id);
        if (h != null) {
            h.cancel();
            // wait (bounded) for the job thread to record the end, so the answer shows the final state
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (running.containsKey(id) && System.nanoTime() < until) {
                Thread.onSpinWait();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return store.find(id);
    }

    private void notifyDone(BackgroundJob j) {
        if (inFlightNotifications.putIfAbsent(j.id(), Boolean.TRUE) != null) {
            return;
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("jobId", j.id());
        meta.put("callId", j.callId());
        meta.put("status", j.status());
        if (j.exitCode() != null) {
            meta.put("exitCode", j.exitCode());
        }
        if (j.durationMs() != null) {
            meta.put("durationMs", j.durationMs());
        }
        meta.put("outputRef", j.outputRef());
        meta.put("command", j.command());
        if (j.error() != null) {
            meta.put("error", j.error());
        }
        String content = "Background job " + j.id() + " " + j.status()
                + (j.exitCode() != null ? " (exit code " + j.exitCode() + ")" : "")
                + (j.error() != null ? ": " + j.error() : "")
                + ". Command: " + j.command() + "\nFirst output:\n" + (j.summary() == null ? "" : j.summary())
                + "\nWhole output: read_file path=\"" + j.outputRef() + "\"";
        // the message "from" is the runner acting for the agent: the agent gets the news of its own job
        // a stable id: a retried notification is the same message, so consumers' dedupe on id drops the copy
        AgentMessage m = new AgentMessage("background_done-" + j.id(), j.team(), "tool-runner", j.agent(),
                MessageType.BACKGROUND_DONE, content, meta, java.time.Instant.now());
        publisher.send(m).whenComplete((v, t) -> {
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
        publisher.event(Event.of(j.team(), j.agent(), EventType.BACKGROUND_FINISHED, Event.newData()
                .put("id", j.id()).put("status", j.status()).put("exitCode", j.exitCode())
                .put("durationMs", j.durationMs())));
    }

    private void renotify() {
        try {
            store.unnotified().forEach(this::notifyDone);
        } catch (Exception e) {
            Log.warnf("background notification retry failed: %s", e.toString());
        }
    }
}

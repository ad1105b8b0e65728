package dev.cohort.toolrunner.persistence;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A team sandbox's background-job records, in {@code <state-dir>/records/background-jobs.json} on the sandbox's own
 * volume: the sandbox holds no database credential. One sandbox serves one team and runs one agent process at a time,
 * so {@link #failRunning} fails every job left running, whatever instance started it (a resumed sandbox is a new pod
 * with a new host name). Finished records are kept for a day, then dropped at the next change.
 */
@ApplicationScoped
@Typed(FileBackgroundJobStore.class)
public class FileBackgroundJobStore implements BackgroundJobStore {
    /** How long a finished, notified job stays answerable by id. */
    static final Duration KEEP = Duration.ofDays(1);

    /** One record: the job and whether its completion was acknowledged by the control half. */
    record Entry(BackgroundJob job, String cwd, boolean notified) {
    }

    @Inject
    ToolRunnerConfig config;

    private volatile JsonRecords<Entry> records;

    private JsonRecords<Entry> records() {
        JsonRecords<Entry> r = records;
        if (r == null) {
            synchronized (this) {
                if (records == null) {
                    records = new JsonRecords<>(config.stateDir().resolve("records").resolve("background-jobs.json"),
                            Entry.class);
                }
                r = records;
            }
        }
        return r;
    }

    @Override
    public void insert(String id, String team, String agent, String callId, String command, String cwd,
            String outputRef, String instance) {
        BackgroundJob job = new BackgroundJob(id, team, agent, callId, command, "running", null, null, null, outputRef,
                null, Instant.now(), null);
        records().update(list -> {
            Instant cutoff = Instant.now().minus(KEEP);
            list.removeIf(e -> e.notified() && e.job().finishedAt() != null && e.job().finishedAt().isBefore(cutoff));
            list.add(new Entry(job, cwd, false));
        });
    }

    @Override
    public boolean finish(String id, String status, Integer exitCode, String error, String summary, long durationMs) {
        return records().change(list -> {
            for (int i = 0; i < list.size(); i++) {
                Entry e = list.get(i);
                if (e.job().id().equals(id) && "running".equals(e.job().status())) {
                    list.set(i, new Entry(ended(e.job(), status, exitCode, error, summary, durationMs), e.cwd(), false));
                    return true;
                }
            }
            return false;
        });
    }

    @Override
    public void markNotified(String id) {
        records().update(list -> list.replaceAll(e -> e.job().id().equals(id) ? new Entry(e.job(), e.cwd(), true) : e));
    }

    @Override
    public Optional<BackgroundJob> find(String id) {
        return records().read(list -> list.stream().map(Entry::job).filter(j -> j.id().equals(id)).findFirst());
    }

    @Override
    public int countRunning(String team) {
        return records().read(list -> (int) list.stream().map(Entry::job)
                .filter(j -> j.team().equals(team) && "running".equals(j.status())).count());
    }

    @Override
    public List<BackgroundJob> failRunning(String instance, String error) {
        return records().change(list -> {
            Instant now = Instant.now();
            List<BackgroundJob> failed = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Entry e = list.get(i);
                if ("running".equals(e.job().status())) {
                    BackgroundJob j = ended(e.job(), "failed", null, error, null,
                            Duration.between(e.job().startedAt(), now).toMillis());
                    list.set(i, new Entry(j, e.cwd(), false));
                    failed.add(j);
                }
            }
            return failed;
        });
    }

    /** The jobs still running, oldest first. */
    public List<BackgroundJob> running() {
        return records().read(list -> list.stream().map(Entry::job).filter(j -> "running".equals(j.status()))
                .sorted(Comparator.comparing(BackgroundJob::startedAt)).toList());
    }

    @Override
    public List<BackgroundJob> unnotified() {
        return records().read(list -> list.stream()
                .filter(e -> !e.notified() && !"running".equals(e.job().status())).map(Entry::job)
                .sorted(Comparator.comparing(BackgroundJob::finishedAt)).toList());
    }

    private static BackgroundJob ended(BackgroundJob j, String status, Integer exitCode, String error, String summary,
            long durationMs) {
        return new BackgroundJob(j.id(), j.team(), j.agent(), j.callId(), j.command(), status, exitCode, durationMs,
                summary, j.outputRef(), error, j.startedAt(), Instant.now());
    }
}

package dev.cohort.toolrunner.persistence;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A team sandbox's worktree records and their audit, in {@code <state-dir>/records/worktrees.json} and
 * {@code worktree-events.json} on the sandbox's own volume (the sandbox holds no database credential).
 */
@ApplicationScoped
@Typed(FileWorktreeStore.class)
public class FileWorktreeStore implements WorktreeStore {
    @Inject
    ToolRunnerConfig config;

    private JsonRecords<Row> rows;
    private JsonRecords<EventRow> events;

    private synchronized JsonRecords<Row> rows() {
        if (rows == null) {
            rows = new JsonRecords<>(config.stateDir().resolve("records").resolve("worktrees.json"), Row.class);
        }
        return rows;
    }

    private synchronized JsonRecords<EventRow> eventRecords() {
        if (events == null) {
            events = new JsonRecords<>(config.stateDir().resolve("records").resolve("worktree-events.json"),
                    EventRow.class);
        }
        return events;
    }

    @Override
    public boolean insert(Row r) {
        Row stamped = new Row(r.team(), r.name(), r.branch(), r.baseCommit(), r.path(), r.taskId(), r.status(),
                r.createdBy(), r.createdAt() == null ? Instant.now() : r.createdAt());
        return rows().change(list -> {
            if (list.stream().anyMatch(x -> x.team().equals(r.team()) && x.name().equals(r.name()))) {
                return false;
            }
            return list.add(stamped);
        });
    }

    @Override
    public Optional<Row> find(String team, String name) {
        return rows().read(list -> list.stream().filter(x -> x.team().equals(team) && x.name().equals(name))
                .findFirst());
    }

    @Override
    public List<Row> list(String team) {
        return rows().read(list -> list.stream().filter(x -> x.team().equals(team)).toList());
    }

    @Override
    public boolean delete(String team, String name) {
        return rows().change(list -> list.removeIf(x -> x.team().equals(team) && x.name().equals(name)));
    }

    @Override
    public void setStatus(String team, String name, String status) {
        rows().update(list -> list.replaceAll(x -> x.team().equals(team) && x.name().equals(name)
                ? new Row(x.team(), x.name(), x.branch(), x.baseCommit(), x.path(), x.taskId(), status, x.createdBy(),
                        x.createdAt())
                : x));
    }

    @Override
    public void event(String team, String name, String event, String taskId, String baseCommit, String agent,
            String detail) {
        eventRecords().update(list -> list.add(new EventRow(team, name, event, taskId, baseCommit, agent, detail,
                Instant.now())));
    }

    @Override
    public List<EventRow> events(String team, String name) {
        return eventRecords().read(list -> list.stream().filter(x -> x.team().equals(team) && x.name().equals(name))
                .toList());
    }
}

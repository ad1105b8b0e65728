package dev.cohort.teammate.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.host.AgentKey;
import dev.cohort.host.client.LeadTasks;
import dev.cohort.teammate.tasks.HeldTaskRepository;
import dev.cohort.teammate.tasks.TeammateTasks;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TeammateTasks#cwd} keeps the held task's worktree per teammate and reads it again after
 * every change of the binding this replica makes (claim, complete or release, lease lost) and after an adoption.
 */
class TeammateCwdCacheTest {

    /** The held-task table as a map, counting its reads (the SQL itself is covered by the service's ITs). */
    static final class TableOfHeldTasks extends HeldTaskRepository {
        final Map<AgentKey, Held> rows = new HashMap<>();
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public Optional<Held> find(String team, String name) {
            reads.incrementAndGet();
            return Optional.ofNullable(rows.get(new AgentKey(team, name)));
        }

        @Override
        public void bind(String team, String name, String taskId, String leaseToken, String worktree) {
            rows.put(new AgentKey(team, name), new Held(team, name, taskId, leaseToken, worktree));
        }

        @Override
        public boolean clear(String team, String name, String taskId) {
            Held h = rows.get(new AgentKey(team, name));
            return h != null && h.taskId().equals(taskId) && rows.remove(new AgentKey(team, name)) != null;
        }
    }

    private static final AgentKey ALICE = new AgentKey("t1", "alice");
    private static final AgentKey BOB = new AgentKey("t1", "bob");

    TableOfHeldTasks table;
    TeammateTasks tasks;

    @BeforeEach
    void setUp() {
        table = new TableOfHeldTasks();
        tasks = new TeammateTasks();
        tasks.held = table;
    }

    private static LeadTasks.Claim claim(String id, String worktree) {
        return new LeadTasks.Claim(new LeadTasks.Task(id, "s", "d", "in_progress", "alice", List.of(), List.of(), false,
                null, null, null, null, 1, 1, "lead", null, null, worktree, null, null), "token-" + id, null, true);
    }

    @Test
    void theCwdIsReadOnceAndKeptUntilTheBindingChanges() {
        assertThat(tasks.cwd(ALICE)).isNull();
        assertThat(tasks.cwd(ALICE)).isNull();
        assertThat(table.reads).hasValue(1);

        tasks.bind(ALICE, claim("task_1", "auth"));
        assertThat(tasks.cwd(ALICE)).isEqualTo("wt:auth");
        assertThat(tasks.cwd(ALICE)).isEqualTo("wt:auth");
        assertThat(table.reads).hasValue(2);

        assertThat(tasks.clear(ALICE, "task_1")).isTrue(); // completed, released or its lease lost
        assertThat(tasks.cwd(ALICE)).isNull();
        assertThat(table.reads).hasValue(3);
    }

    @Test
    void aClearThatDoesNotMatchTheHeldTaskKeepsTheNewerBinding() {
        tasks.bind(ALICE, claim("task_2", "api"));
        assertThat(tasks.clear(ALICE, "task_1")).isFalse();
        assertThat(tasks.cwd(ALICE)).isEqualTo("wt:api");
    }

    @Test
    void anAdoptionReadsAgainWhatAnotherReplicaMayHaveChanged() {
        assertThat(tasks.cwd(ALICE)).isNull();
        table.bind("t1", "alice", "task_3", "tok", "ui"); // written by the replica that hosted alice meanwhile
        assertThat(tasks.cwd(ALICE)).isNull(); // still the kept value: nothing on this replica changed it
        tasks.forget(ALICE);
        assertThat(tasks.cwd(ALICE)).isEqualTo("wt:ui");
    }

    @Test
    void eachTeammateHasItsOwnCwd() {
        tasks.bind(ALICE, claim("task_4", "auth"));
        assertThat(tasks.cwd(BOB)).isNull();
        assertThat(tasks.cwd(ALICE)).isEqualTo("wt:auth");
        tasks.clear(BOB, "task_4");
        assertThat(tasks.cwd(ALICE)).isEqualTo("wt:auth");
    }
}

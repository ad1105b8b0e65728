package dev.cohort.lead.tasks;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.payload.TaskAvailable;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import io.quarkus.logging.Log;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.List;
import java.util.Optional;

/**
 * Pushes {@code task_available} (so nobody needs thundering-herd polling) to the idle teammates of a team when tasks
 * become claimable: created unblocked, unblocked by a completion, released, or back from an expired lease. One
 * message per idle live teammate of the roster that may take at least one of the tasks (role / assignee), from the
 * lead, on {@code cohort.teammate.inbox}. Sent off the caller's thread after the change committed: a wake-up is a
 * hint (the teammate then calls claim-next), so a lost one costs at most the teammate's slow fallback poll, and a
 * slow broker never slows a board operation.
 */
@ApplicationScoped
public class TaskAvailability {

    /** The roster phase of a teammate that waits for work (a working one claims when its turn ends). */
    static final String IDLE = "idle";

    @Inject
    RosterRepository roster;

    @Inject
    AgentInboxPublisher publisher;

    private final ExecutorService sender = Executors.newVirtualThreadPerTaskExecutor();

    /** Announces {@code tasks} (claimable now) to the team's idle teammates that may take them; no-op when empty. */
    public void announce(String team, List<TaskRow> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        sender.execute(() -> {
            try {
                for (RosterRepository.RosterRow t : roster.list(team)) {
                    if (!IDLE.equals(t.phase()) || Ids.LEAD.equals(t.name())) {
                        continue;
                    }
                    Optional<TaskRow> first = tasks.stream().filter(r -> r.eligible(t.name(), t.role())).findFirst();
                    if (first.isEmpty()) {
                        continue;
                    }
                    TaskRow r = first.get();
                    publisher.publish(AgentMessage.of(team, Ids.LEAD, t.name(), TaskIds.format(r.id()) + ": " + r.subject(),
                            new TaskAvailable(TaskIds.format(r.id()), r.subject())));
                }
            } catch (RuntimeException e) {
                Log.warnf("team=%s task_available not sent (teammates fall back to their slow poll): %s", team,
                        e.getMessage());
            }
        });
    }

    @PreDestroy
    void close() {
        sender.shutdown();
    }
}

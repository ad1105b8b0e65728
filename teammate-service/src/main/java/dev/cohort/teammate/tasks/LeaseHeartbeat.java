package dev.cohort.teammate.tasks;

import dev.cohort.core.host.AgentKey;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.client.LeadTasks;
import dev.cohort.teammate.config.TeammateInstance;
import dev.cohort.teammate.tasks.HeldTaskRepository.Held;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One lease-heartbeat loop per teammate-service replica: every
 * {@code cohort.autoclaim.heartbeat-interval} it renews the leases of every task held by a teammate this replica hosts
 * ({@code teammate.agents.owner}), with one batched call per team. A lease the lead reports lost (expired while the
 * replica was away, retaken, completed) is cleared here, so the teammate's cwd returns to the workspace; a later
 * {@code complete_task} of the stale task is refused by the lead (wrong lease token) and the model is told. A replica
 * that dies renews nothing: its teammates' leases lapse and the tasks go back to pending.
 */
@ApplicationScoped
public class LeaseHeartbeat {

    @Inject
    HeldTaskRepository held;

    @Inject
    TeammateTasks tasks;

    @Inject
    LeadInternalClient lead;

    @Inject
    ClaimConfig config;

    @Inject
    TeammateInstance instance;

    private ScheduledExecutorService loop;

    void onStart(@Observes StartupEvent ev) {
        long every = Math.max(100, config.heartbeatInterval().toMillis());
        loop = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("lease-heartbeat").factory());
        loop.scheduleWithFixedDelay(this::beatSafely, every, every, TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (loop != null) {
            loop.shutdownNow();
        }
    }

    private void beatSafely() {
        try {
            beat();
        } catch (RuntimeException e) {
            Log.warnf("lease heartbeat round failed (next round retries): %s", e.toString());
        }
    }

    /** One round: renews every held lease of the hosted teammates; returns how many were lost. */
    public int beat() {
        Map<String, List<Held>> byTeam = new LinkedHashMap<>();
        for (Held h : held.hostedBy(instance.id())) {
            byTeam.computeIfAbsent(h.team(), t -> new ArrayList<>()).add(h);
        }
        int lost = 0;
        for (Map.Entry<String, List<Held>> e : byTeam.entrySet()) {
            String team = e.getKey();
            try {
                LeadTasks.Renewal r = lead.heartbeats(team, e.getValue().stream()
                        .map(h -> new LeadTasks.LeaseRef(h.taskId(), h.name(), h.leaseToken())).toList(),
                        TeammateTasks.seconds(config.lease()));
                Set<String> gone = new HashSet<>(r.lost() == null ? List.of() : r.lost());
                for (Held h : e.getValue()) {
                    if (gone.contains(h.taskId()) && tasks.clear(new AgentKey(team, h.name()), h.taskId())) {
                        lost++;
                        Log.infof("team=%s agent=%s task=%s lease lost (expired or retaken): binding cleared", team,
                                h.name(), h.taskId());
                    }
                }
            } catch (RuntimeException ex) {
                Log.warnf("team=%s cannot renew %d lease(s): %s", team, e.getValue().size(), ex.toString());
            }
        }
        return lost;
    }
}

package dev.cohort.lead.agent;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Topics;
import dev.cohort.host.HostConfig;
import dev.cohort.host.ownership.PartitionOwnership;
import dev.cohort.host.service.AgentService;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.lead.approvals.ParkedTurns;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.teams.TeamRepository;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Semaphore;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The leads of the teams whose partitions this replica owns: agent-host's {@link AgentService} for the kind
 * {@code lead} (record key: the team; every team of the team table), running the {@link LeadProgram}, saved through
 * {@link PgAgentStore} over {@code lead.agents}: one actor per team, a virtual
 * thread only while its lead works, turns capped by {@code cohort.host.max-running-turns}, parked turns swept every
 * {@code cohort.host.sweep-interval}, hand-over bounded by {@code cohort.host.handover-timeout}. This class only
 * maps teams to agent keys (the lead's name is {@code lead}) and ties the host to the application's life cycle;
 * the mechanics are documented on {@link AgentHost}.
 */
@ApplicationScoped
public class LeadHost implements ParkedTurns {

    @Inject
    LeadEngine engine;

    @Inject
    LeadProgram program;

    @Inject
    HostConfig config;

    @Inject
    AgroalDataSource ds;

    @Inject
    EventService events;

    @Inject
    TeamRepository teams;

    private volatile AgentService service;

    /** The shared host the leads run on. */
    public AgentHost agentHost() {
        return service().host();
    }

    /** This replica's leads: the service, built on first use (the engine is assembled by then). */
    private AgentService service() {
        AgentService s = service;
        if (s == null) {
            synchronized (this) {
                s = service;
                if (s == null) {
                    // a team's lead lives where the team's partition of cohort.prompts is (its inbox topic is
                    // co-partitioned): the record key is the team
                    AgentService.Kind kind = new AgentService.Kind("lead", Topics.PROMPTS, PartitionOwnership.Directory
                            .of(() -> leads(teams.list().stream().map(t -> t.id()).toList()), AgentKey::team));
                    // the lead's step events are stored by its step's save (the event log is the team's)
                    s = new AgentService(kind, ds, engine.engine(), program, new LeadInputLedger(events),
                            config.toSettings(HostConfig.newInstanceId()));
                    service = s;
                }
            }
        }
        return s;
    }

    /** The rebalance listener of the {@code lead-in} channel: the leads follow the team partitions assigned here. */
    @Produces
    @Singleton
    @Identifier("lead-ownership")
    KafkaConsumerRebalanceListener ownership() {
        return service().ownership();
    }

    static AgentKey lead(String team) {
        return new AgentKey(team, Ids.LEAD);
    }

    private static List<AgentKey> leads(Collection<String> teams) {
        return teams.stream().map(LeadHost::lead).toList();
    }

    void onStart(@Observes StartupEvent ev) {
        service().start();
    }

    void onStop(@Observes ShutdownEvent ev) {
        // handed over: resumed by the next owner (or this one after a restart), once none of them writes any more
        service().close();
    }

    /**
     * An input for the team's lead was stored (any prompt or inbox message): its next drain reads the store, and its
     * actor is started or nudged (not for a team handed over).
     */
    public void wake(String team) {
        program.inputStored(team);
        service().host().wake(lead(team));
    }

    /** An approval was answered: wake the lead at once if this replica hosts its parked turn; false if it does not. */
    @Override
    public boolean wakeIfParked(String team) {
        return service().host().wakeIfParked(lead(team));
    }

    /** The teams whose partitions were assigned here: their leads are adopted (and resumed). */
    public void adopt(Collection<String> teams) {
        service().host().adopt(leads(teams));
    }

    /** Hands the teams' leads over; returns the teams whose lead is out of any turn (see {@link AgentHost#detach}). */
    public Set<String> detachAll(Collection<String> teams, Duration timeout) {
        Set<String> out = new TreeSet<>();
        service().host().detach(leads(teams), timeout).forEach(k -> out.add(k.team()));
        return out;
    }

    /** Ends the team's running or parked turn (Ctrl-C in `cohort chat`); false when none is here. */
    public boolean interrupt(String team) {
        return service().host().interrupt(lead(team));
    }

    /** The handover bound of this replica. */
    public Duration handoverTimeout() {
        return config.handoverTimeout();
    }

    /** True when the team's lead keeps its idle session here (its next turn does not read it back), for tests. */
    public boolean keeps(String team) {
        return service().host().keeps(lead(team));
    }

    /** True while the team's lead has a thread here, for tests. */

    public boolean hosting(String team) {
        return service().host().hosting(lead(team));
    }

    /** What an actor does after an unexpected failure, for tests. */
    public void abandonTurn(String team, RuntimeException cause) {
        service().host().abandonTurn(lead(team), cause);
    }

    Semaphore turnSlots() {
        return service().host().turnSlots();
    }

    void turnSlots(Semaphore slots) {
        service().host().turnSlots(slots);
    }

    /** One sweep of the parked leads now, for tests. */
    void sweep() {
        service().host().sweep();
    }
}

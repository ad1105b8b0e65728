package dev.cohort.lead.agent;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Ids;
import dev.cohort.host.HostConfig;
import dev.cohort.host.store.EventsClause;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.lead.approvals.ParkedTurns;
import dev.cohort.lead.events.EventService;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Semaphore;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The leads of the teams whose partitions this replica owns, on the shared {@link AgentHost} (core) with the
 * {@link LeadProgram}, saved through {@link PgAgentStore} over {@code lead.agents}: one actor per team, a virtual
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

    private volatile AgentHost host;

    /** The shared host the leads run on (for the partition listener). */
    public AgentHost agentHost() {
        return host();
    }

    /** The host, built on first use (the engine is assembled by then). */
    private AgentHost host() {
        AgentHost h = host;
        if (h == null) {
            synchronized (this) {
                h = host;
                if (h == null) {
                    // the lead's step events are stored in the transaction of their step's save
                    LeadInputLedger.EventLog log = new LeadInputLedger.EventLog() {
                        @Override
                        public List<Event> storeIn(Connection c,
                                List<Event> stepEvents) throws SQLException {
                            return events.storeIn(c, stepEvents);
                        }

                        @Override
                        public EventsClause clause(List<Event> stepEvents) {
                            return events.clause(stepEvents);
                        }

                        @Override
                        public void committed(List<Event> stored) {
                            events.committed(stored);
                        }

                        @Override
                        public void beforeStore(String team) {
                            events.awaitAhead(team);
                        }
                    };
                    h = new AgentHost(engine.engine(), new PgAgentStore(ds, "lead", new LeadInputLedger(log)), program,
                            config.toSettings(HostConfig.newInstanceId()));
                    host = h;
                }
            }
        }
        return h;
    }

    static AgentKey lead(String team) {
        return new AgentKey(team, Ids.LEAD);
    }

    private static List<AgentKey> leads(Collection<String> teams) {
        return teams.stream().map(LeadHost::lead).toList();
    }

    void onStart(@Observes StartupEvent ev) {
        host().start();
    }

    void onStop(@Observes ShutdownEvent ev) {
        // handed over: resumed by the next owner (or this one after a restart), once none of them writes any more
        host().close();
    }

    /**
     * An input for the team's lead was stored (any prompt or inbox message): its next drain reads the store, and its
     * actor is started or nudged (not for a team handed over).
     */
    public void wake(String team) {
        program.inputStored(team);
        host().wake(lead(team));
    }

    /** An approval was answered: wake the lead at once if this replica hosts its parked turn; false if it does not. */
    @Override
    public boolean wakeIfParked(String team) {
        return host().wakeIfParked(lead(team));
    }

    /** The teams whose partitions were assigned here: their leads are adopted (and resumed). */
    public void adopt(Collection<String> teams) {
        host().adopt(leads(teams));
    }

    /** Hands the teams' leads over; returns the teams whose lead is out of any turn (see {@link AgentHost#detach}). */
    public Set<String> detachAll(Collection<String> teams, Duration timeout) {
        Set<String> out = new TreeSet<>();
        host().detach(leads(teams), timeout).forEach(k -> out.add(k.team()));
        return out;
    }

    /** Ends the team's running or parked turn (Ctrl-C in `cohort chat`); false when none is here. */
    public boolean interrupt(String team) {
        return host().interrupt(lead(team));
    }

    /** The handover bound of this replica. */
    public Duration handoverTimeout() {
        return config.handoverTimeout();
    }

    /** True when the team's lead keeps its idle session here (its next turn does not read it back), for tests. */
    public boolean keeps(String team) {
        return host().keeps(lead(team));
    }

    /** True while the team's lead has a thread here, for tests. */

    public boolean hosting(String team) {
        return host().hosting(lead(team));
    }

    /** What an actor does after an unexpected failure, for tests. */
    public void abandonTurn(String team, RuntimeException cause) {
        host().abandonTurn(lead(team), cause);
    }

    Semaphore turnSlots() {
        return host().turnSlots();
    }

    void turnSlots(Semaphore slots) {
        host().turnSlots(slots);
    }

    /** One sweep of the parked leads now, for tests. */
    void sweep() {
        host().sweep();
    }
}

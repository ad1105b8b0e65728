package dev.cohort.teammate.agent;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.host.HostConfig;
import dev.cohort.core.protocol.Topics;
import dev.cohort.host.ownership.PartitionOwnership;
import dev.cohort.host.service.AgentService;
import dev.cohort.host.store.InputLedger;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.host.store.PgInbox;
import dev.cohort.teammate.config.TeammateInstance;
import dev.cohort.teammate.engine.TeammateEngine;
import dev.cohort.teammate.lifecycle.TeammateClock;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import dev.cohort.teammate.protocols.RunningTurns;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;

/**
 * The teammates whose partitions of {@code cohort.teammate.inbox} this replica owns: agent-host's {@link AgentService}
 * for the kind {@code teammate} (record key {@code <team>/<name>}, the active teammates of the roster), running the
 * {@link TeammateProgram}, saved through {@link PgAgentStore} over {@code teammate.agents} (the
 * inbox items a save contains marked injected in its transaction): a virtual thread only while a teammate works,
 * turns capped by {@code cohort.host.max-running-turns}, idle deadlines swept every {@code cohort.host.sweep-interval},
 * hand-over bounded by {@code cohort.host.handover-timeout}. The mechanics are documented on {@link AgentHost}.
 */
@ApplicationScoped
public class TeammateHost implements RunningTurns {

    @Inject
    TeammateEngine engine;

    @Inject
    TeammateProgram program;

    @Inject
    HostConfig config;

    @Inject
    AgroalDataSource ds;

    @Inject
    PgInbox inbox;

    @Inject
    TeammateInstance instance;

    @Inject
    TeammateClock clock;

    @Inject
    TeammateRepository teammates;

    private volatile AgentService service;

    /** This replica's teammates: the service, built on first use. */
    public AgentService service() {
        AgentService s = service;
        if (s == null) {
            synchronized (this) {
                s = service;
                if (s == null) {
                    AgentService.Kind kind = new AgentService.Kind("teammate", Topics.TEAMMATE_INBOX,
                            PartitionOwnership.Directory.of(teammates::activeKeys, AgentKey::id));
                    s = new AgentService(kind, ds, engine.engine(), program, ledger(),
                            config.toSettings(instance.id()).withClock(clock));
                    service = s;
                }
            }
        }
        return s;
    }

    /** The host the teammates run on. */
    public AgentHost agentHost() {
        return service().host();
    }

    /**
     * What every save records besides the state, in its transaction: the inbox items it contains (injected) and, for
     * a save that takes inputs into a turn, that the turn's result is owed to the lead (sent when it ends; re-sent by
     * a replica that adopts the teammate if its host died before the send).
     */
    private InputLedger ledger() {
        InputLedger marks = inbox.ledger();
        // both write only for a save that takes inputs: every other save is one statement, without a transaction
        return InputLedger.forInputs((c, key, state, ids) -> {
            marks.saved(c, key, state, ids);
            if (!ids.isEmpty() && state.turn() != null) {
                teammates.owe(c, key.team(), key.name(), state.turn().turnId());
            }
        });
    }

    void onStart(@Observes StartupEvent ev) {
        service().start();
    }

    void onStop(@Observes ShutdownEvent ev) {
        // handed over: resumed by the next owner (or by this replica after a restart)
        service().close();
    }

    /** An inbox item for the teammate was stored: its next drain reads it, and its actor is started or nudged. */
    public void wake(AgentKey key) {
        program.inputStored(key);
        service().wake(key);
    }

    /** Asks the teammate's actor for its next step without marking an input stored (task_available). */
    public void nudge(AgentKey key) {
        agentHost().wake(key);
    }

    public boolean wakeIfParked(AgentKey key) {
        return agentHost().wakeIfParked(key);
    }

    @Override
    public boolean interrupt(AgentKey key) {
        return agentHost().interrupt(key);
    }

    public Duration handoverTimeout() {
        return config.handoverTimeout();
    }
}

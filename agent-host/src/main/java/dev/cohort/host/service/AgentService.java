package dev.cohort.host.service;

import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentProgram;
import dev.cohort.core.host.HostSettings;
import dev.cohort.host.ownership.PartitionOwnership;
import dev.cohort.host.store.InputLedger;
import dev.cohort.host.store.PgAgentStore;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * One kind of agent hosted by a service: its {@link AgentProgram} on an {@link AgentHost}, saved through a
 * {@link PgAgentStore} in the kind's schema, its agents owned where their inbox partition is assigned
 * ({@link PartitionOwnership}), every save fenced. A service declares the kind ({@link Kind}), builds its engine
 * ({@code EngineAssembly}) and program, and feeds inputs: it stores each one, then {@link #wake}s its agent. The
 * service's inbox consumer ({@link InboxPoller}) passes its rebalances to {@link #ownership()}.
 */
public final class AgentService implements AutoCloseable {

    /**
     * What a kind of agent declares besides its program.
     *
     * @param schema    the database schema of its tables ({@code agents}, {@code inbox}, {@code transcripts}, from the
     *                  agent-host migrations)
     * @param topic     its inbox topic, whose partitions decide which replica hosts which agent
     * @param directory its agents and the record key of each
     */
    public record Kind(String schema, String topic, PartitionOwnership.Directory directory) {
        public Kind {
            Objects.requireNonNull(schema, "schema");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(directory, "directory");
        }
    }

    private final Kind kind;
    private final AgentHost host;
    private final PartitionOwnership ownership;

    /**
     * @param ledger what each save records besides the agent's row, in its transaction (e.g. the inbox items it
     *               injected: {@code PgInbox#ledger})
     */
    public AgentService(Kind kind, DataSource ds, AgentEngine engine, AgentProgram program, InputLedger ledger,
            HostSettings settings) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.host = new AgentHost(engine, new PgAgentStore(ds, kind.schema(), ledger), program, settings);
        this.ownership = new PartitionOwnership(kind.topic(), () -> host, settings.handoverTimeout(), kind.directory());
    }

    public Kind kind() {
        return kind;
    }

    /** The host, for what this class does not pass on. */
    public AgentHost host() {
        return host;
    }

    /** The rebalance listener of the kind's inbox consumer. */
    public PartitionOwnership ownership() {
        return ownership;
    }

    /** Starts the host's sweeper (parked agents, idle deadlines). */
    public AgentService start() {
        host.start();
        return this;
    }

    /** An input for the agent was stored: its actor is started or nudged (not for an agent handed over). */
    public void wake(AgentKey key) {
        host.wake(key);
    }

    /** Wakes the agent at once if its parked turn is hosted here; false if it is not. */
    public boolean wakeIfParked(AgentKey key) {
        return host.wakeIfParked(key);
    }

    /** Ends the agent's running or parked turn here; false when none is here. */
    public boolean interrupt(AgentKey key) {
        return host.interrupt(key);
    }

    /** Hands every agent over: the next owner (or this one after a restart) resumes them. */
    @Override
    public void close() {
        host.close();
    }
}

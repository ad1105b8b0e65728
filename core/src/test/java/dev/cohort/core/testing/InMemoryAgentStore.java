package dev.cohort.core.testing;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.StepSave;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.AgentStore;
import dev.cohort.core.host.OwnershipLostException;
import dev.cohort.core.host.Park;
import dev.cohort.core.host.Phase;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link AgentStore} in memory with the same fence as the PostgreSQL one: adopt bumps the version, a write with
 * an older version is refused. Keeps the state as JSON (what a row keeps), the owner, the park, and every id marked
 * injected. Shared by the host's tests and benchmarks (core and services).
 */
public final class InMemoryAgentStore implements AgentStore {

    /** A stored agent. */
    public record Row(String stateJson, long version, String owner, Phase phase, Park park, List<String> injected) {
    }

    private final Map<AgentKey, Row> rows = new ConcurrentHashMap<>();

    @Override
    public synchronized AgentRecord adopt(AgentKey key, String instance) {
        Row r = rows.get(key);
        Row next = r == null ? new Row(AgentState.empty().toJson(), 0, instance, Phase.IDLE, Park.IDLE, List.of())
                : new Row(r.stateJson, r.version + 1, instance, r.phase, r.park, r.injected);
        rows.put(key, next);
        return new AgentRecord(key, AgentState.fromJson(next.stateJson), next.phase == Phase.WORKING ? null : next.park,
                next.version);
    }

    @Override
    public synchronized long save(AgentKey key, StepSave step, long expectedVersion) {
        AgentState state = step.state();
        List<String> injectedIds = step.injectedIds();
        Row r = fenced(key, expectedVersion);
        List<String> injected = new ArrayList<>(r.injected);
        injected.addAll(injectedIds);
        Phase phase = AgentStore.phaseOf(state);
        Park park = phase == Phase.WORKING ? null : phase == Phase.IDLE ? Park.IDLE
                : new Park(phase, state.turn().waiting().id(), null);
        Row next = new Row(state.toJson(), r.version + 1, r.owner, phase, park, List.copyOf(injected));
        rows.put(key, next);
        return next.version;
    }

    @Override
    public synchronized long park(AgentKey key, Park park, long expectedVersion) {
        Row r = fenced(key, expectedVersion);
        Row next = new Row(r.stateJson, r.version + 1, r.owner, park.phase(), park, r.injected);
        rows.put(key, next);
        return next.version;
    }

    private Row fenced(AgentKey key, long expectedVersion) {
        Row r = rows.get(key);
        if (r == null || r.version != expectedVersion) {
            throw new OwnershipLostException("agent " + key + " was saved by someone else (expected version "
                    + expectedVersion + ", stored " + (r == null ? "none" : r.version) + ")");
        }
        return r;
    }

    public Row row(AgentKey key) {
        return rows.get(key);
    }

    public AgentState state(AgentKey key) {
        return AgentState.fromJson(rows.get(key).stateJson);
    }

    /** Replaces the stored state (what another host saved), bumping the version. */
    public synchronized void put(AgentKey key, AgentState state) {
        Row r = rows.get(key);
        rows.put(key, new Row(state.toJson(), r == null ? 0 : r.version + 1, r == null ? null : r.owner,
                AgentStore.phaseOf(state), null, r == null ? List.of() : r.injected));
    }

    /** A database that refuses connections, as tests simulate it: an {@code SQLException} of SQLState class 08. */
    @Override
    public boolean unavailable(Throwable failure) {
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }
}

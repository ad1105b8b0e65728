package dev.cohort.host.store;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.AgentStore;
import dev.cohort.core.host.OwnershipLostException;
import dev.cohort.core.host.Park;
import dev.cohort.core.host.Phase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The {@link AgentStore} over {@code <schema>.agents} in PostgreSQL: one row per agent with its engine state
 * (JSONB), {@code version} (the fence), {@code status} (the {@link Phase}), {@code turn_id}, {@code waiting_for},
 * {@code deadline}, {@code owner} and {@code updated_at}.
 *
 * <p>Each call is one transaction of one fenced statement: {@code adopt} is an upsert that bumps the version and
 * records the owner; {@code save} and {@code park} are {@code UPDATE … WHERE version = :mine RETURNING version}, and a
 * save runs the service's {@link InputLedger} in the same transaction (which also stores the step's events there when
 * the ledger keeps them: {@link InputLedger#storesEvents()}). A write that matches no row throws
 * {@link OwnershipLostException}.
 */
public final class PgAgentStore implements AgentStore {

    private final DataSource ds;
    private final String table;
    private final InputLedger ledger;
    private final String adoptSql;
    private final String saveSql;
    private final String parkSql;

    public PgAgentStore(DataSource ds, String schema, InputLedger ledger) {
        this.ds = Objects.requireNonNull(ds, "ds");
        Sql.schema(schema, "agent store");
        this.table = schema + ".agents";
        this.ledger = ledger == null ? InputLedger.NONE : ledger;
        this.adoptSql = "INSERT INTO " + table + " AS a (team, name, state, owner) VALUES (?, ?, ?::jsonb, ?) "
                + "ON CONFLICT (team, name) DO UPDATE SET version = a.version + 1, owner = EXCLUDED.owner "
                + "RETURNING state::text, version, status, waiting_for, deadline";
        this.saveSql = "UPDATE " + table + " SET state = ?::jsonb, status = ?, turn_id = ?, waiting_for = ?, deadline = NULL, "
                + "version = version + 1, updated_at = now() WHERE team = ? AND name = ? AND version = ? RETURNING version";
        this.parkSql = "UPDATE " + table + " SET status = ?, waiting_for = ?, deadline = ?, version = version + 1, "
                + "updated_at = now() WHERE team = ? AND name = ? AND version = ? RETURNING version";
    }

    @Override
    public AgentRecord adopt(AgentKey key, String instance) {
        if (instance == null || instance.isBlank()) {
            throw new IllegalArgumentException("adopting agent " + key + " needs the adopting instance's id");
        }
        return tx("adopt agent " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement(adoptSql)) {
                ps.setString(1, key.team());
                ps.setString(2, key.name());
                ps.setString(3, AgentState.empty().toJson());
                ps.setString(4, instance);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    Phase phase = phase(rs.getString(3));
                    Timestamp deadline = rs.getTimestamp(5);
                    Park park = phase == Phase.WORKING ? null
                            : new Park(phase, rs.getString(4), deadline == null ? null : deadline.toInstant());
                    return new AgentRecord(key, AgentState.fromJson(rs.getString(1)), park, rs.getLong(2));
                }
            }
        });
    }

    @Override
    public long save(AgentKey key, AgentState state, long expectedVersion, List<String> injectedIds) {
        return save(key, state, expectedVersion, injectedIds, List.of());
    }

    @Override
    public boolean storesEvents() {
        return ledger.storesEvents();
    }

    @Override
    public long save(AgentKey key, AgentState state, long expectedVersion, List<String> injectedIds,
            List<dev.cohort.core.protocol.Event> events) {
        if (!events.isEmpty() && !ledger.storesEvents()) {
            throw new UnsupportedOperationException("the input ledger of " + table + " does not store events");
        }
        String json = state.toJson();
        java.util.concurrent.atomic.AtomicReference<List<dev.cohort.core.protocol.Event>> stored =
                new java.util.concurrent.atomic.AtomicReference<>(List.of());
        long version = tx("save agent " + key, c -> {
            String turnId = state.turn() == null ? null : state.turn().turnId();
            long v;
            try (PreparedStatement ps = c.prepareStatement(saveSql)) {
                ps.setString(1, json);
                ps.setString(2, AgentStore.phaseOf(state).wire());
                ps.setString(3, turnId);
                ps.setString(4, state.turn() == null || state.turn().waiting() == null ? null : state.turn().waiting().id());
                ps.setString(5, key.team());
                ps.setString(6, key.name());
                ps.setLong(7, expectedVersion);
                v = fenced(ps, key, expectedVersion);
            }
            ledger.saved(c, key, state, injectedIds);
            if (!events.isEmpty()) {
                stored.set(ledger.storeEvents(c, key, events));
            }
            return v;
        });
        if (!events.isEmpty()) {
            ledger.eventsCommitted(key, stored.get());
        }
        return version;
    }

    @Override
    public long park(AgentKey key, Park park, long expectedVersion) {
        return tx("park agent " + key, c -> {
            try (PreparedStatement ps = c.prepareStatement(parkSql)) {
                ps.setString(1, park.phase().wire());
                ps.setString(2, park.waitingFor());
                ps.setTimestamp(3, park.deadline() == null ? null : Timestamp.from(park.deadline()));
                ps.setString(4, key.team());
                ps.setString(5, key.name());
                ps.setLong(6, expectedVersion);
                return fenced(ps, key, expectedVersion);
            }
        });
    }

    private long fenced(PreparedStatement ps, AgentKey key, long expectedVersion) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new OwnershipLostException("agent " + key + " was saved by someone else (expected version "
                        + expectedVersion + ")");
            }
            return rs.getLong(1);
        }
    }

    /** Rows written by an older build say {@code idle}/{@code working}; anything unknown reads as working (resumed). */
    private static Phase phase(String status) {
        try {
            return status == null ? Phase.IDLE : Phase.of(status);
        } catch (IllegalArgumentException e) {
            return Phase.WORKING;
        }
    }

    private <T> T tx(String what, Sql.Work<T> work) {
        return Sql.inTransaction(ds, what + " in " + table, work);
    }
}

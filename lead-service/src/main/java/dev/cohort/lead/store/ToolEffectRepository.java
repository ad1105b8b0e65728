package dev.cohort.lead.store;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.EffectRecord;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code lead.tool_effects}: the first result of each side-effecting tool call of the lead's own tools (task board,
 * memory), keyed by (agent, call id) ({@link EffectKey#uuid()}), written in the transaction of the call's effect. A
 * repeated call (a resumed turn) is answered from here; see {@link #once} for the whole sequence.
 */
@ApplicationScoped
public class ToolEffectRepository {

    @Inject
    AgroalDataSource ds;

    /**
     * Thrown inside an effect's transaction when another transaction recorded the same key first (two hosts running
     * the same call at once): the effect is rolled back and the caller answers from the record.
     */
    public static final class AlreadyRecorded extends RuntimeException {
        public AlreadyRecorded(EffectKey key) {
            super("call " + key.callId() + " of " + key.agentId() + " was recorded by another transaction", null, false,
                    false);
        }
    }

    /** The recorded first result of the call with this key, if there is one. */
    public Optional<EffectRecord> find(EffectKey key) {
        return Sql.inTransaction(ds, "read the record of call " + key.callId(), c -> find(c, key.uuid()));
    }

    /**
     * A hook for a state change's transaction that records {@code render(outcome)} under {@code key}, unless the
     * result is an error (by the tool contract an error changed nothing, so there is nothing to remember).
     *
     * @throws AlreadyRecorded (from the hook) when the key was recorded by a transaction that committed first
     */
    public static <T> InTransaction<T> recorder(String team, EffectKey key, Function<T, ToolResult> render) {
        return (c, outcome) -> {
            ToolResult r = render.apply(outcome);
            if (!r.error() && !record(c, team, key, r)) {
                throw new AlreadyRecorded(key);
            }
        };
    }

    /**
     * The sequence of an idempotent call: answer from the record if the key has one (the same call: its first result;
     * another call under the same id: {@link EffectKey#reused}); else run {@code effect}, which records its result in
     * its own transaction through a {@link #recorder}; if a concurrent run recorded first, answer from that record.
     */
    public ToolResult once(EffectKey key, Supplier<ToolResult> effect) {
        Optional<EffectRecord> first = find(key);
        if (first.isPresent()) {
            return key.replay(first.get());
        }
        try {
            return effect.get();
        } catch (AlreadyRecorded e) {
            return key.replay(find(key).orElseThrow(() -> new IllegalStateException(e.getMessage() + " but not found")));
        }
    }

    /** The record under {@code key}, read on the caller's connection. */
    public static Optional<EffectRecord> find(Connection c, UUID key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT tool, digest, result FROM lead.tool_effects WHERE key = ?")) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new EffectRecord(rs.getString(1), rs.getString(2), rs.getString(3)))
                        : Optional.empty();
            }
        }
    }

    /**
     * Records {@code result} under {@code key} in the caller's transaction. A concurrent transaction holding the same
     * key makes this wait for its end (the primary key's index).
     *
     * @return false when the key was already recorded (by a transaction that committed first)
     */
    public static boolean record(Connection c, String team, EffectKey key, ToolResult result) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.tool_effects (key, team, agent_id, call_id, tool,"
                + " digest, result) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING")) {
            ps.setObject(1, key.uuid());
            ps.setString(2, team);
            ps.setString(3, key.agentId());
            ps.setString(4, key.callId());
            ps.setString(5, key.tool());
            ps.setString(6, key.digest());
            ps.setString(7, result.content());
            return ps.executeUpdate() == 1;
        }
    }
}

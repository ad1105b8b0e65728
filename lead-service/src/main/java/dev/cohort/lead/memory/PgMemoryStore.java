package dev.cohort.lead.memory;

import dev.cohort.core.memory.Memory;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.memory.MemoryType;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.EffectRecord;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.cohort.platform.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.function.Function;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A team's memories in {@code lead.memories}; {@link #replaceAll} is one transaction, so a failure keeps the old set.
 * A tool call's change ({@link #once}) and the record of its result in {@code lead.tool_effects} are one transaction.
 * A memory's provenance is kept with it: {@code written_by} and {@code updated_at} (when it was written).
 */
public final class PgMemoryStore implements MemoryStore {

    private final DataSource ds;
    /** Set for the view {@link #once} hands its change: every statement runs in that one transaction. */
    private final Connection bound;
    private final String team;

    public PgMemoryStore(DataSource ds, String team) {
        this(ds, null, team);
    }

    private PgMemoryStore(DataSource ds, Connection bound, String team) {
        this.ds = ds;
        this.bound = bound;
        this.team = team;
    }

    /** Runs {@code work} in its own transaction, or in the bound one. */
    private <T> T tx(String what, Sql.Work<T> work) {
        if (bound == null) {
            return Sql.inTransaction(ds, what, work);
        }
        try {
            return work.run(bound);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * A read of one statement: on the bound transaction, else on its own (auto-commit: no {@code BEGIN}/{@code COMMIT}
     * round trips around the one query; the lead reads the team's memories before every model call).
     */
    private <T> T read(String what, Sql.Work<T> work) {
        if (bound != null) {
            return tx(what, work);
        }
        try (Connection c = ds.getConnection()) {
            if (!c.getAutoCommit()) {
                return tx(what, work);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public ToolResult once(EffectKey key, Function<MemoryStore, ToolResult> change) {
        if (bound != null) {
            throw new IllegalStateException("a tool call's change cannot contain another one");
        }
        Optional<EffectRecord> first = Sql.inTransaction(ds, "read the record of call "
                + key.callId(), c -> ToolEffectRepository.find(c, key.uuid()));
        if (first.isPresent()) {
            return key.replay(first.get());
        }
        try {
            return Sql.inTransaction(ds, "change memories of " + team + " for call " + key.callId(), c -> {
                ToolResult r = change.apply(new PgMemoryStore(ds, c, team));
                if (r.error()) {
                    c.rollback(); // an error result changed nothing: leave nothing behind either
                } else if (!ToolEffectRepository.record(c, team, key, r)) {
                    throw new ToolEffectRepository.AlreadyRecorded(key);
                }
                return r;
            });
        } catch (ToolEffectRepository.AlreadyRecorded e) {
            return key.replay(Sql.inTransaction(ds, "read the record of call " + key.callId(),
                    c -> ToolEffectRepository.find(c, key.uuid())).orElseThrow(() -> new IllegalStateException(
                            e.getMessage() + " but not found")));
        }
    }

    @Override
    public List<Memory> all() {
        return read("read memories of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + COLUMNS + " FROM lead.memories WHERE team = ? ORDER BY name")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    List<Memory> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                    return out;
                }
            }
        });
    }

    @Override
    public Optional<Memory> get(String name) {
        return read("read memory " + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + COLUMNS + " FROM lead.memories WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public void put(Memory m) {
        tx("write memory " + m.name(), c -> {
            upsert(c, m);
            return null;
        });
    }

    @Override
    public boolean delete(String name) {
        return tx("delete memory " + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM lead.memories WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public void replaceAll(List<Memory> memories) {
        tx("replace memories of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM lead.memories WHERE team = ?")) {
                ps.setString(1, team);
                ps.executeUpdate();
            }
            for (Memory m : memories) {
                upsert(c, m);
            }
            return null;
        });
    }

    private void upsert(Connection c, Memory m) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.memories (team, name, type, description, body, "
                + "written_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, COALESCE(?, now())) ON CONFLICT (team, name) DO UPDATE "
                + "SET type = EXCLUDED.type, description = EXCLUDED.description, body = EXCLUDED.body, "
                + "written_by = EXCLUDED.written_by, updated_at = EXCLUDED.updated_at")) {
            Sql.bind(ps, team, m.name(), m.type().name(), m.description(), m.body(), m.writtenBy());
            ps.setObject(7, m.writtenAt() == null ? null : OffsetDateTime.ofInstant(m.writtenAt(), ZoneOffset.UTC),
                    Types.TIMESTAMP_WITH_TIMEZONE);
            ps.executeUpdate();
        }
    }

    private static final String COLUMNS = "name, type, description, body, written_by, updated_at";

    private static Memory row(ResultSet rs) throws SQLException {
        OffsetDateTime at = rs.getObject(6, OffsetDateTime.class);
        return new Memory(rs.getString(1), MemoryType.parse(rs.getString(2)).orElse(MemoryType.PROJECT), rs.getString(3),
                rs.getString(4), rs.getString(5), at == null ? null : at.toInstant());
    }
}

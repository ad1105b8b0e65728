package dev.cohort.lead.persistence;

import dev.cohort.core.memory.Memory;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.memory.MemoryType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** A team's memories in {@code lead.memories}; {@link #replaceAll} is one transaction, so a failure keeps the old set. */
public final class PgMemoryStore implements MemoryStore {

    private final DataSource ds;
    private final String team;

    public PgMemoryStore(DataSource ds, String team) {
        this.ds = ds;
        this.team = team;
    }

    @Override
    public List<Memory> all() {
        return Jdbc.inTransaction(ds, "read memories of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT name, type, description, body FROM lead.memories WHERE team = ? ORDER BY name")) {
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
        return Jdbc.inTransaction(ds, "read memory " + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT name, type, description, body FROM lead.memories WHERE team = ? AND name = ?")) {
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
        Jdbc.inTransaction(ds, "write memory " + m.name(), c -> {
            upsert(c, m);
            return null;
        });
    }

    @Override
    public boolean delete(String name) {
        return Jdbc.inTransaction(ds, "delete memory " + name, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM lead.memories WHERE team = ? AND name = ?")) {
                ps.setString(1, team);
                ps.setString(2, name);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public void replaceAll(List<Memory> memories) {
        Jdbc.inTransaction(ds, "replace memories of " + team, c -> {
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
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.memories (team, name, type, description, body) "
                + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (team, name) DO UPDATE SET type = EXCLUDED.type, "
                + "description = EXCLUDED.description, body = EXCLUDED.body, updated_at = now()")) {
            ps.setString(1, team);
            ps.setString(2, m.name());
            ps.setString(3, m.type().name());
            ps.setString(4, m.description());
            ps.setString(5, m.body());
            ps.executeUpdate();
        }
    }

    private static Memory row(ResultSet rs) throws SQLException {
        return new Memory(rs.getString(1), MemoryType.parse(rs.getString(2)).orElse(MemoryType.PROJECT), rs.getString(3),
                rs.getString(4));
    }
}

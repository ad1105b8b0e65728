package dev.cohort.host.persistence;

import dev.cohort.core.engine.TranscriptStore;
import dev.cohort.platform.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Transcripts and oversized tool results in {@code <schema>.transcripts} (the service's own schema: the lead's
 * {@code lead}): write-once, a taken name gets a new one. Each access is one statement, committed on its own. Thread-safe.
 */
public final class PgTranscriptStore implements TranscriptStore {

    /** A plain lower-case SQL identifier: the schema is spliced into the statements, so nothing else is accepted. */

    private final DataSource ds;
    private final String insert;
    private final String select;

    /**
     * @param schema the schema holding {@code transcripts(agent_id, name, content)} with a unique {@code (agent_id,
     *               name)}, e.g. {@code lead}
     * @throws IllegalArgumentException when {@code schema} is not a plain lower-case identifier
     */
    public PgTranscriptStore(DataSource ds, String schema) {
        this.ds = Objects.requireNonNull(ds, "ds");
        Sql.schema(schema, "transcript");
        this.insert = "INSERT INTO " + schema + ".transcripts (agent_id, name, content) VALUES (?, ?, ?) ON CONFLICT DO NOTHING";
        this.select = "SELECT content FROM " + schema + ".transcripts WHERE agent_id = ? AND name = ?";
    }

    @Override
    public String write(String agentId, String name, String content) {
        String candidate = name;
        for (int i = 0; i < 5; i++) {
            if (insert(agentId, candidate, content)) {
                return candidate;
            }
            candidate = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        }
        throw new IllegalStateException("cannot find a free transcript name for " + name);
    }

    private boolean insert(String agentId, String name, String content) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(insert)) {
            Sql.bind(ps, agentId, name, content);
            boolean stored = ps.executeUpdate() == 1;
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return stored;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot store transcript " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<String> read(String agentId, String name) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(select)) {
            ps.setString(1, agentId);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read transcript " + name + ": " + e.getMessage(), e);
        }
    }
}

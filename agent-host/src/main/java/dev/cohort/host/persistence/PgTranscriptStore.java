package dev.cohort.lead.persistence;

import dev.cohort.core.engine.TranscriptStore;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.UUID;

/** Transcripts and oversized tool results in {@code lead.transcripts}: write-once, a taken name gets a new one. */
@ApplicationScoped
public class PgTranscriptStore implements TranscriptStore {

    @Inject
    AgroalDataSource ds;

    @Override
    public String write(String agentId, String name, String content) {
        String candidate = name;
        for (int i = 0; i < 5; i++) {
            String n = candidate;
            boolean stored = Jdbc.inTransaction(ds, "store transcript " + n, c -> {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO lead.transcripts (agent_id, name, content) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
                    ps.setString(1, agentId);
                    ps.setString(2, n);
                    ps.setString(3, content);
                    return ps.executeUpdate() == 1;
                }
            });
            if (stored) {
                return n;
            }
            candidate = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        }
        throw new IllegalStateException("cannot find a free transcript name for " + name);
    }

    @Override
    public Optional<String> read(String agentId, String name) {
        return Jdbc.inTransaction(ds, "read transcript " + name, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT content FROM lead.transcripts WHERE agent_id = ? AND name = ?")) {
                ps.setString(1, agentId);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }
}

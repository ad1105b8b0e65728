package dev.cohort.lead.persistence;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Prompts a lead has accepted, in {@code lead.prompts}; the key (team, id) is the redelivery guard. */
@ApplicationScoped
public class PromptRepository {

    @Inject
    AgroalDataSource ds;

    /** Records a prompt; false when this id was seen before (a redelivered record or a retried POST). */
    public boolean insertIfNew(String team, String id, String text, String source) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO lead.prompts (team, id, text, source) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            ps.setString(1, team);
            ps.setString(2, id);
            ps.setString(3, text);
            ps.setString(4, source);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record prompt " + id + " of team " + team, e);
        }
    }

    /** Moves a prompt to a new status (received → done | failed). */
    public void setStatus(String team, String id, String status) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE lead.prompts SET status = ? WHERE team = ? AND id = ?")) {
            ps.setString(1, status);
            ps.setString(2, team);
            ps.setString(3, id);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot update prompt " + id, e);
        }
    }
}

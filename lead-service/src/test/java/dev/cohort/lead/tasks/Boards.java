package dev.cohort.lead.tasks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.teams.TeamRepository;
import io.agroal.api.AgroalDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Test helpers: a fresh team per test (boards are per team), and the task events stored for a team. */
final class Boards {
    private Boards() {
    }

    /** A new team with an empty board. */
    static String newTeam(TeamRepository teams, String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        if (!teams.insert(team, null, "default")) {
            throw new IllegalStateException("team " + team + " exists");
        }
        return team;
    }

    /** A stored event: its type, agent and data. */
    record StoredEvent(String type, String agent, JsonNode data) {
    }

    /** The team's {@code task_*} events in sequence order. */
    static List<StoredEvent> taskEvents(AgroalDataSource ds, String team) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT type, agent, data::text FROM lead.events WHERE team = ? AND type LIKE 'task\\_%' ORDER BY seq")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<StoredEvent> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new StoredEvent(rs.getString(1), rs.getString(2), Json.MAPPER.readTree(rs.getString(3))));
                }
                return out;
            }
        } catch (SQLException | JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

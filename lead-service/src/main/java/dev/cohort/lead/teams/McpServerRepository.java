package dev.cohort.lead.teams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServers;
import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A team's MCP servers set over the API ({@code lead.team_mcp_servers}, V101.2), stored validated in the shape of
 * {@code .mcp.json} ({@link McpServers#toJson}) with their secrets as sent (the public API shows them redacted; the
 * internal API hands them whole to the teammates' hosts, whose tool runner starts or calls the servers). Every write
 * of the table goes through this class. The lead reads them once per turn start (one primary-key query, as for the
 * team's permission rules), so a change applies from each agent's next turn, also one made on another replica.
 */
@ApplicationScoped
public class McpServerRepository {

    /** The source of the servers stored here ({@link McpServerConfig#source()}). */
    public static final String SOURCE = "api";

    @Inject
    AgroalDataSource ds;

    /**
     * The team's servers as stored now, in name order, each with source {@value #SOURCE}; empty when it set none.
     */
    public Map<String, McpServerConfig> find(String team) {
        return Sql.inTransaction(ds, "read the MCP servers of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT servers FROM lead.team_mcp_servers WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Map.of();
                    }
                    // jsonb keeps no key order: by name, so every read offers the servers in the same order
                    Map<String, McpServerConfig> servers = new TreeMap<>(McpServers.parse(
                            Json.read(rs.getString(1), JsonNode.class), "mcpServers", SOURCE));
                    return Collections.unmodifiableMap(new LinkedHashMap<>(servers));
                }
            }
        });
    }

    /**
     * Replaces the team's servers by {@code servers} (validated, every {@link McpServers#STORED} already replaced by
     * the stored value); none removes the row.
     */
    public void save(String team, Map<String, McpServerConfig> servers) {
        Sql.inTransaction(ds, "set the MCP servers of team " + team, c -> {
            if (servers.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM lead.team_mcp_servers WHERE team = ?")) {
                    ps.setString(1, team);
                    ps.executeUpdate();
                }
                return null;
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.team_mcp_servers (team, servers) VALUES"
                    + " (?, CAST(? AS jsonb)) ON CONFLICT (team) DO UPDATE SET servers = EXCLUDED.servers,"
                    + " updated_at = now()")) {
                ps.setString(1, team);
                ps.setString(2, Json.write(McpServers.toJson(servers)));
                ps.executeUpdate();
            }
            return null;
        });
    }
}

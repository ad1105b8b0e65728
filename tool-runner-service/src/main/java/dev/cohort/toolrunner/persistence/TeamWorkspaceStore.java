package dev.cohort.toolrunner.persistence;

import dev.cohort.platform.sql.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/** {@code toolrunner.team_workspaces}: the workspace a team was created with; set once, never moved. */
@ApplicationScoped
public class TeamWorkspaceStore {
    /** Looked up when used: a team sandbox has no database, and nothing there reaches this store. */
    @Inject
    Instance<DataSource> dataSource;

    private DataSource ds() {
        return dataSource.get();
    }

    /**
     * Records {@code path} as the team's workspace unless one is recorded already (one conditional statement, so two
     * concurrent creations cannot both win). Returns the path recorded after the statement: {@code path}, or the
     * earlier one.
     */
    public String claim(String team, String path, String requested) throws SQLException {
        try (Connection c = ds().getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO toolrunner.team_workspaces (team, path, requested)"
                    + " VALUES (?, ?, ?) ON CONFLICT (team) DO NOTHING")) {
                Sql.bind(ps, team, path, requested);
                if (ps.executeUpdate() == 1) {
                    return path;
                }
            }
            return find(c, team).orElseThrow(() -> new SQLException("team " + team + " has no workspace row"));
        }
    }

    /** The recorded workspace of {@code team}, if it has its own. */
    public Optional<String> find(String team) throws SQLException {
        try (Connection c = ds().getConnection()) {
            return find(c, team);
        }
    }

    /** The recorded workspaces of every team but {@code team}: team to path. */
    public Map<String, String> othersThan(String team) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = ds().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT team, path FROM toolrunner.team_workspaces WHERE team <> ?")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return out;
    }

    private static Optional<String> find(Connection c, String team) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT path FROM toolrunner.team_workspaces WHERE team = ?")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }
}

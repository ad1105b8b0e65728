package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.devstack.pg.LocalPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The lead's agent tables come from agent-host's migrations ({@code db/agent-host}), after the lead's own, with the
 * Flyway settings of the lead's {@code application.properties}. A database made by the release before (its history in
 * {@code lead.flyway_schema_history}, last version 23, the agent tables made by the lead's own migrations of then,
 * kept in {@code db/before-agent-host}) is baselined and brought to the same shape as a new one, its rows kept; one
 * older than that is refused with a message that says what to do.
 */
class LeadSchemaMigrationTest {

    private static LocalPostgres pg;
    private static int databases;

    @BeforeAll
    static void start() {
        pg = LocalPostgres.start(0);
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    /** A new, empty database owned by the application role. */
    private static PGSimpleDataSource database() throws SQLException {
        String name = "lead_migration_" + (++databases);
        PGSimpleDataSource admin = source(LocalPostgres.DATABASE, pg.superuser(), pg.superuserPassword());
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + " OWNER " + pg.username());
        }
        return source(name, pg.username(), pg.password());
    }

    private static PGSimpleDataSource source(String database, String user, String password) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(pg.jdbcUrl().substring(0, pg.jdbcUrl().lastIndexOf('/') + 1) + database);
        ds.setUser(user);
        ds.setPassword(password);
        return ds;
    }

    /** Flyway as lead-service runs it at start: its {@code quarkus.flyway.*} settings. */
    private static Flyway leadFlyway(PGSimpleDataSource ds) throws IOException {
        return leadFlywayConfig(ds).load();
    }

    private static FluentConfiguration leadFlywayConfig(PGSimpleDataSource ds) throws IOException {
        Properties p = new Properties();
        try (InputStream in = LeadSchemaMigrationTest.class.getResourceAsStream("/application.properties")) {
            p.load(in);
        }
        FluentConfiguration f = Flyway.configure().dataSource(ds)
                .schemas(p.getProperty("quarkus.flyway.schemas").split(","))
                .defaultSchema(p.getProperty("quarkus.flyway.default-schema"))
                .createSchemas(Boolean.parseBoolean(p.getProperty("quarkus.flyway.create-schemas")))
                .locations(p.getProperty("quarkus.flyway.locations").split(","))
                .table(p.getProperty("quarkus.flyway.table"))
                .baselineOnMigrate(Boolean.parseBoolean(p.getProperty("quarkus.flyway.baseline-on-migrate")))
                .baselineVersion(p.getProperty("quarkus.flyway.baseline-version"))
                .baselineDescription(p.getProperty("quarkus.flyway.baseline-description"));
        return f;
    }

    private static final Pattern VERSION = Pattern.compile("V(\\d+)__.*\\.sql");

    /**
     * The release before, migrated up to {@code target}: the lead's migrations of then, which are today's up to 23
     * but for the agent tables they made themselves ({@code db/before-agent-host}).
     */
    private static void releaseBefore(PGSimpleDataSource ds, int target) throws IOException, URISyntaxException {
        Path dir = Files.createTempDirectory("lead-release-before");
        Path old = resource("/db/before-agent-host");
        List<String> replaced = new ArrayList<>();
        try (Stream<Path> files = Files.list(old)) {
            for (Path f : files.toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
                replaced.add(f.getFileName().toString().replaceFirst("__.*", ""));
            }
        }
        try (Stream<Path> files = Files.list(resource("/db/migration"))) {
            for (Path f : files.toList()) {
                Matcher m = VERSION.matcher(f.getFileName().toString());
                if (m.matches() && Integer.parseInt(m.group(1)) <= 23 && !replaced.contains("V" + m.group(1))) {
                    Files.copy(f, dir.resolve(f.getFileName()));
                }
            }
        }
        Flyway.configure().dataSource(ds).schemas("lead").defaultSchema("lead").createSchemas(true)
                .locations("filesystem:" + dir).target(String.valueOf(target)).load().migrate();
    }

    private static Path resource(String name) throws URISyntaxException {
        URL url = LeadSchemaMigrationTest.class.getResource(name);
        assertThat(url).as(name).isNotNull();
        return Path.of(url.toURI());
    }

    @Test
    void aDatabaseOfTheReleaseBeforeIsBroughtToTheShapeOfANewOneWithItsRowsKept() throws Exception {
        PGSimpleDataSource fresh = database();
        leadFlyway(fresh).migrate();

        PGSimpleDataSource upgraded = database();
        releaseBefore(upgraded, 23);
        try (Connection c = upgraded.getConnection(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO lead.agents (team, name, state, version, status, owner) VALUES ('default', 'lead',"
                    + " '{\"messageCount\":1}', 7, 'idle', 'replica-1')");
            s.execute("INSERT INTO lead.agent_messages (team, name, idx, message) VALUES ('default', 'lead', 0,"
                    + " '{\"role\":\"user\",\"content\":\"hello\"}')");
            s.execute("INSERT INTO lead.inbox (team, id, sender, type, content) VALUES ('default', 'm1', 'alice',"
                    + " 'result', 'done')");
            s.execute("INSERT INTO lead.transcripts (agent_id, name, content) VALUES ('default/lead', 't1', 'x')");
        }
        leadFlyway(upgraded).migrate();

        // the agent tables, and a table of the lead's own migrations after agent-host's (V101.2)
        for (String table : List.of("agents", "agent_messages", "inbox", "transcripts", "team_mcp_servers", "a2a_tasks", "usage")) {
            assertThat(shape(upgraded, table)).as(table).isEqualTo(shape(fresh, table));
        }
        try (Connection c = upgraded.getConnection(); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT team || '/' || agent || '/' || id || ' ' || status FROM lead.inbox"))
                    .containsExactly("default/lead/m1 received");
            assertThat(rows(s, "SELECT name || ' v' || version || ' ' || owner || ' ' || state::text FROM lead.agents"))
                    .containsExactly("lead v7 replica-1 {\"messageCount\": 1}");
            assertThat(rows(s, "SELECT message->>'content' FROM lead.agent_messages")).containsExactly("hello");
            assertThat(rows(s, "SELECT name FROM lead.transcripts")).containsExactly("t1");
            assertThat(rows(s, "SELECT count(*) FROM pg_tables WHERE schemaname = 'lead'"
                    + " AND tablename = 'flyway_schema_history'")).containsExactly("0");
            assertThat(rows(s, "SELECT version || ' ' || type FROM lead.lead_schema_history ORDER BY installed_rank"))
                    .containsExactly("101 BASELINE", "101.1 SQL", "101.2 SQL", "101.3 SQL", "101.4 SQL");
            // another kind of agent's inbox rows can live beside the lead's now: the key has the agent in it
            s.execute("INSERT INTO lead.inbox (team, agent, id, sender, type) VALUES ('default', 'other', 'm1', 'x',"
                    + " 'message')");
        }
        // and a second start finds nothing to do
        assertThat(leadFlyway(upgraded).migrate().migrationsExecuted).isZero();
    }

    /**
     * A database made by the release that brought agent-host's migrations (the lead's own up to 23, then 100, 101 and
     * 101.1) takes every later migration of the lead's: they must be numbered above 101.1 (V101.2, …), since Flyway
     * refuses to start on a new version below the highest applied (a V24 would fail validation here).
     */
    @Test
    void aDatabaseMadeWithAgentHostsMigrationsTakesTheLeadsLaterOnes() throws Exception {
        PGSimpleDataSource db = database();
        Path dir = Files.createTempDirectory("lead-release-with-agent-host");
        try (Stream<Path> files = Files.list(resource("/db/migration"))) {
            for (Path f : files.toList()) {
                Matcher m = VERSION.matcher(f.getFileName().toString());
                if (m.matches() && Integer.parseInt(m.group(1)) <= 23
                        || f.getFileName().toString().startsWith("V101_1__")) {
                    Files.copy(f, dir.resolve(f.getFileName()));
                }
            }
        }
        leadFlywayConfig(db).locations("filesystem:" + dir, "classpath:db/agent-host").load().migrate();

        assertThat(leadFlyway(db).migrate().migrationsExecuted).isPositive();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT count(*) FROM pg_tables WHERE schemaname = 'lead'"
                    + " AND tablename = 'team_mcp_servers'")).containsExactly("1");
        }
    }

    @Test
    void aDatabaseOlderThanTheReleaseBeforeIsRefusedWithWhatToDo() throws Exception {
        PGSimpleDataSource old = database();
        releaseBefore(old, 20);
        assertThatThrownBy(() -> leadFlyway(old).migrate())
                .hasStackTraceContaining("older than its migration 23")
                .hasStackTraceContaining("start the release before the agent-host migrations once");
    }

    @Test
    void aNewDatabaseHasEveryAgentTableFromAgentHostsMigrations() throws Exception {
        PGSimpleDataSource fresh = database();
        leadFlyway(fresh).migrate();
        try (Connection c = fresh.getConnection(); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT version FROM lead.lead_schema_history WHERE version IN ('100', '101', '101.1')"
                    + " ORDER BY installed_rank")).containsExactly("100", "101", "101.1");
        }
    }

    /** Columns (name, type, nullability, default), indexes and constraints of {@code lead.<table>}, sorted. */
    private static TreeSet<String> shape(PGSimpleDataSource ds, String table) throws SQLException {
        TreeSet<String> out = new TreeSet<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            out.addAll(rows(s, "SELECT 'column ' || column_name || ' ' || data_type || ' ' || is_nullable || ' '"
                    + " || COALESCE(column_default, '-') FROM information_schema.columns WHERE table_schema = 'lead'"
                    + " AND table_name = '" + table + "'"));
            out.addAll(rows(s, "SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'lead'"
                    + " AND tablename = '" + table + "'"));
            out.addAll(rows(s, "SELECT 'constraint ' || contype::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint"
                    + " WHERE conrelid = 'lead." + table + "'::regclass"));
        }
        assertThat(out).as("lead." + table + " exists").isNotEmpty();
        return out;
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}

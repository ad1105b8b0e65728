package dev.cohort.lead.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The lead's {@code V19__agent_messages.sql} is agent-host's {@code V101__agent_messages.sql} for the {@code lead}
 * schema (statement for statement), so what {@code PgStoresTest} proves of the shared one — an old-format row's
 * conversation moved into {@code agent_messages} and resumed whole — holds for {@code lead.agents} too.
 */
class AgentMessagesMigrationTest {

    private static String statements(String resource) throws IOException {
        try (InputStream in = AgentMessagesMigrationTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            // the header comment names the other copy; the statements start at the table
            return sql.substring(sql.indexOf("CREATE TABLE"));
        }
    }

    @Test
    void theLeadsMigrationIsTheSharedHostsForTheLeadSchema() throws IOException {
        assertThat(statements("/db/migration/V19__agent_messages.sql"))
                .isEqualTo(statements("/db/agent-host/V101__agent_messages.sql").replace("${flyway:defaultSchema}", "lead"));
    }
}

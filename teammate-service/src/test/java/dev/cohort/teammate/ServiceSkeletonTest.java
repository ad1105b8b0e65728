package dev.cohort.teammate;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The service boots against real Kafka and PostgreSQL, migrates its own schema and reports health and metrics. */
@QuarkusTest
class ServiceSkeletonTest {

    @Inject
    AgroalDataSource ds;

    @Test
    void readinessIsUpWithDatabaseAndKafkaChecks() {
        // the inbox consumer reports UP once its first poll ran, which may come after the boot when this test runs first
        String ready = TestHTTPResourceManager.getManagementUri() + "/health/ready";
        await().atMost(Duration.ofSeconds(60)).until(() -> given().get(ready).statusCode() == 200);
        given().get(ready).then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.name", hasItem("Database connections health check"))
                .body("checks.find { it.name == 'teammate inbox consumer' }.status", equalTo("UP"));
    }

    @Test
    void metricsAreExposedForPrometheus() {
        given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }

    @Test
    void flywayMigratedTheTeammateSchemaWithTheSharedHostTables() throws Exception {
        try (Connection c = ds.getConnection();
                ResultSet rs = c.createStatement().executeQuery(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'teammate' ORDER BY 1")) {
            List<String> tables = new ArrayList<>();
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
            assertThat(tables).contains("teammates", "agents", "inbox", "transcripts", "flyway_schema_history")
                    .doesNotContain("inbox_seen");
        }
    }
}

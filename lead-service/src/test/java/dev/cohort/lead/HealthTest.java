package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * Health (database and Kafka checks) and Prometheus metrics are served, open, on the management port only: the API's
 * port does not answer them.
 */
@QuarkusTest
class HealthTest {

    @TestHTTPResource(value = "/health/ready", management = true)
    URL ready;

    @TestHTTPResource(value = "/health/live", management = true)
    URL live;

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Test
    void readinessIsUpWithDatabaseAndKafkaChecks() {
        given().get(ready).then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.name", hasItems("Database connections health check",
                        "SmallRye Reactive Messaging - readiness check"));
        given().get(live).then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void metricsAreExposedForPrometheus() {
        // one request served first, so the HTTP timer exists whichever test of the boot ran before
        given().get("/api/v1/teams").then().statusCode(200);
        given().get(metrics).then().statusCode(200).body(containsString("http_server_requests_seconds"));
    }

    @Test
    void theApiPortServesNeitherHealthNorMetrics() {
        given().get("/q/health/ready").then().statusCode(404);
        given().get("/q/metrics").then().statusCode(404);
    }
}

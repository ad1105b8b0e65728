package dev.cohort.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.reliability.RelStack.Service;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What every service's {@code /q/health/ready} checks, seen from outside on the four packaged services ({@link RelStack}):
 * each reports DOWN (503), naming the failed check, while the broker is stopped and then while the database is
 * stopped, and UP again once each is back, without a restart of the service.
 */
class ReadinessIT {

    /** The name of agent-host's broker check ({@code KafkaReadinessCheck}) in every service. */
    private static final String KAFKA = "Kafka broker connection";
    /** Quarkus' datasource check. */
    private static final String DATABASE = "Database connections health check";
    /** A check notices within seconds; a loaded 2-core machine may take longer to answer at all. */
    private static final Duration NOTICE = Duration.ofSeconds(90);

    /** One service's readiness answer: the HTTP status and each check's status by name. */
    private record Readiness(int status, Map<String, String> checks) {
    }

    @Test
    void everyServiceIsNotReadyWhileTheBrokerOrTheDatabaseIsDownAndReadyAgainOnceItIsBack() {
        try (RelStack st = RelStack.start()) {
            try {
                for (Service s : Service.values()) {
                    Readiness r = readiness(st, s);
                    System.out.println("[readiness] " + s.module + ": " + r.checks());
                    assertThat(r.status()).as("%s ready: %s", s.module, r).isEqualTo(200);
                    assertThat(r.checks()).as(s.module).containsEntry(KAFKA, "UP").containsEntry(DATABASE, "UP");
                }

                st.kafka.stop();
                for (Service s : Service.values()) {
                    awaitCheck(st, s, KAFKA, "DOWN", 503);
                }
                st.kafka.restart();
                for (Service s : Service.values()) {
                    awaitReady(st, s);
                }

                st.pg.stop();
                for (Service s : Service.values()) {
                    awaitCheck(st, s, DATABASE, "DOWN", 503);
                }
                st.pg.restart();
                for (Service s : Service.values()) {
                    awaitReady(st, s);
                }
            } catch (Throwable t) {
                System.out.println(st.logs());
                throw t;
            }
        }
    }

    private static void awaitReady(RelStack st, Service s) {
        Readiness r = await(s.module + " ready again").atMost(NOTICE).pollInterval(Duration.ofMillis(250))
                .until(() -> readiness(st, s), x -> x.status() == 200);
        assertThat(r.checks()).as(s.module).containsEntry(KAFKA, "UP").containsEntry(DATABASE, "UP");
    }

    private static void awaitCheck(RelStack st, Service s, String check, String status, int http) {
        await(s.module + ": " + check + " " + status).atMost(NOTICE).pollInterval(Duration.ofMillis(250))
                .until(() -> readiness(st, s), r -> r.status() == http && status.equals(r.checks().get(check)));
    }

    /** {@code GET /q/health/ready}; an answer that does not come within 10 s counts as status 0 with no checks. */
    private static Readiness readiness(RelStack st, Service s) {
        try {
            HttpResponse<String> r = st.http.send(HttpRequest.newBuilder(URI.create(st.managementUrl(s) + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            Map<String, String> checks = new LinkedHashMap<>();
            JsonNode body = Json.MAPPER.readTree(r.body());
            for (JsonNode c : body.path("checks")) {
                checks.put(c.path("name").asText(), c.path("status").asText());
            }
            return new Readiness(r.statusCode(), checks);
        } catch (IOException e) {
            return new Readiness(0, Map.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

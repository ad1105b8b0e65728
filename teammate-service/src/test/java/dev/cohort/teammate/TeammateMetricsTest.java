package dev.cohort.teammate;

import static dev.cohort.teammate.TeammateHostTest.awaitResults;
import static dev.cohort.teammate.TeammateHostTest.newTeam;
import static dev.cohort.teammate.TeammateHostTest.rule;
import static dev.cohort.teammate.TeammateHostTest.rules;
import static dev.cohort.teammate.TeammateHostTest.spawn;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.teammate.agent.TeammateMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gauge KEDA scales teammate-service on ({@code cohort_teammates_running}, k8s/README.md): a teammate held inside
 * a bash call by a file gate counts while it works and stops counting once its turn ended and it is idle.
 */
@QuarkusTest
class TeammateMetricsTest {

    static final Duration PATIENCE = Duration.ofMinutes(3);
    static final Pattern EXPOSED = Pattern.compile("(?m)^cohort_teammates_running(?:\\{[^}]*\\})? ([0-9.]+)$");

    @ConfigProperty(name = "cohort.test.workspace")
    String workspace;

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Inject
    MeterRegistry registry;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        TopicRecorder.start();
    }

    @Test
    void theRunningGaugeCountsAWorkingTeammateOnMetricsAndDropsWhenItIsIdle() throws Exception {
        // other tests' teammates may still be finishing their turns
        await().atMost(PATIENCE).until(() -> gauge() == 0.0);
        String team = newTeam("metrics");
        String agent = team + "/gus";
        // the command runs sandboxed in the team's workspace (<root>/teams/<team>) and waits for the test's gate file
        Path gate = Path.of(workspace).resolve("teams").resolve(team).resolve("gate");
        String command = "while [ ! -e gate ]; do sleep 0.05; done; echo released-gus";
        model.append(rules(
                rule("gus-start", agent, "\"lastRole\":\"user\"",
                        "{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"" + command + "\"}}]}"),
                rule("gus-end", agent, "\"lastRole\":\"tool\",\"lastMessage\":\"released-gus\"", "{\"text\":\"gus done\"}")));

        spawn(team, "gus", "waiter", "wait for the gate");

        await().atMost(PATIENCE).until(() -> gauge() == 1.0);
        assertThat(exposed()).as("as Prometheus reads it").isEqualTo(1.0);
        assertThat(sample("cohort_teammates{state=\"running\"}")).isEqualTo(1.0);

        // a running turn may not have reached the tool runner yet: the gate goes in once the runner made the workspace
        // (the command passes a gate that is there before it starts)
        await().atMost(PATIENCE).until(() -> Files.isDirectory(gate.getParent()));
        Files.createFile(gate);
        assertThat(awaitResults(team, "gus", 1).get(0).content()).isEqualTo("gus done");
        await().atMost(PATIENCE).until(() -> gauge() == 0.0);
        assertThat(exposed()).isEqualTo(0.0);
        await().atMost(PATIENCE).until(() -> sample("cohort_teammates{state=\"running\"}") == 0.0);
        assertThat(sample("cohort_teammates{state=\"idle\"}")).as("gus waits for input").isGreaterThanOrEqualTo(1.0);
        assertThat(sample("cohort_teammates{state=\"parked\"}")).isEqualTo(0.0);
        // the engine's metrics (MicrometerEngineMetrics): gus's bash call, its two model calls, its completed turn
        assertThat(sample("cohort_tool_call_duration_seconds_count{outcome=\"ok\",service=\"teammate-service\","
                + "tool=\"bash\"}")).isGreaterThanOrEqualTo(1.0);
        assertThat(sum("cohort_model_calls_total", "outcome=\"ok\"", "service=\"teammate-service\""))
                .isGreaterThanOrEqualTo(2.0);
        assertThat(sample("cohort_turn_duration_seconds_count{reason=\"completed\",service=\"teammate-service\"}"))
                .isGreaterThanOrEqualTo(1.0);
        assertThat(metricsBody()).contains("cohort_turn_duration_seconds_bucket{reason=\"completed\","
                + "service=\"teammate-service\",le=");
    }

    static String metricsBody() {
        return given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString();
    }

    /** The sum of the series of {@code metric} whose labels contain every one of {@code labels}. */
    static double sum(String metric, String... labels) {
        double total = 0;
        for (String line : metricsBody().split("\n")) {
            if (line.startsWith(metric + "{") && Arrays.stream(labels).allMatch(line::contains)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    /** The value of one series on /q/metrics, written as Prometheus does (labels sorted by name); 0 when absent. */
    static double sample(String series) {
        for (String line : metricsBody().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0.0;
    }

    double gauge() {
        return registry.get(TeammateMetrics.RUNNING).gauge().value();
    }

    static double exposed() {
        String body = given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString();
        Matcher m = EXPOSED.matcher(body);
        assertThat(m.find()).as("cohort_teammates_running on /q/metrics").isTrue();
        return Double.parseDouble(m.group(1));
    }
}

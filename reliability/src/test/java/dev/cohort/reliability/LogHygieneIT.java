package dev.cohort.reliability;

import static dev.cohort.reliability.Workload.call;
import static dev.cohort.reliability.Workload.calls;
import static dev.cohort.reliability.Workload.rule;
import static dev.cohort.reliability.Workload.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.reliability.RelStack.Service;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Log hygiene, checked against the four packaged services as real processes ({@link RelStack}: cohort up's environment,
 * prod profile, so JSON logs): a scripted session whose prompt, tool outputs, teammate prompt, answers, cron prompt,
 * model API key and service tokens are marker secrets runs end to end (lead bash call → spawn_teammate → teammate bash
 * call → its result back to the lead), then every service's whole log is searched for every marker: none may appear.
 * The same logs must be JSON lines carrying the MDC fields team/agent/turn, and the engine's metrics must be on
 * {@code /q/metrics} of the lead and the teammate service.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogHygieneIT {

    static final Duration PATIENCE = Duration.ofMinutes(5);
    static final String TEAM = "logs";
    static final String TEAMMATE = "scribe";
    /** One run's marker suffix: a secret found in a log cannot come from an earlier run. */
    static final String RUN = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    static final String API_KEY = "sk-LOGSECRET-APIKEY-" + RUN;
    static final String PROMPT = "PROMPTSECRET" + RUN;
    static final String TEAMMATE_PROMPT = "TMPROMPTSECRET" + RUN;
    /** Tool outputs: the command builds the marker ({@code $(echo …)}), so it appears in the output only. */
    static final String LEAD_OUTPUT = "LEADTOOLOUTSECRET" + RUN;
    static final String TEAMMATE_OUTPUT = "TMTOOLOUTSECRET" + RUN;
    static final String LEAD_ANSWER = "LEADANSWERSECRET" + RUN;
    static final String TEAMMATE_ANSWER = "TMANSWERSECRET" + RUN;
    static final String CRON_PROMPT = "CRONPROMPTSECRET" + RUN;

    private RelStack stack;

    @BeforeAll
    void start() {
        stack = RelStack.start(Map.of("OPENAI_API_KEY", API_KEY));
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void noPromptToolOutputAnswerKeyOrTokenReachesAnyServiceLogAndTheLogsAreJsonWithAgentFields() throws Exception {
        stack.appendRules(RelStack.MEMORY_RULE + "," + rules());
        assertThat(stack.post(Service.LEAD, "/api/v1/teams", Map.of("id", TEAM)).statusCode()).isEqualTo(201);
        HttpResponse<String> cron = stack.post(Service.SCHEDULER, "/api/v1/teams/" + TEAM + "/crons",
                Map.of("cron", "0 0 1 1 *", "prompt", CRON_PROMPT));
        assertThat(cron.statusCode()).as(cron.body()).isEqualTo(201);
        HttpResponse<String> prompt = stack.post(Service.LEAD, "/api/v1/teams/" + TEAM + "/prompts",
                Map.of("text", "please work " + PROMPT));
        assertThat(prompt.statusCode()).as(prompt.body()).isEqualTo(202);

        // the teammate's result reached the lead's model, and both agents' turns completed (the engine's metrics)
        await().atMost(PATIENCE).until(() -> stack.model.requests().stream()
                .anyMatch(r -> r.agent().equals(TEAM + "/lead") && r.body().toString().contains(TEAMMATE_ANSWER)));
        await().atMost(PATIENCE).until(() -> sum(Service.LEAD, "cohort_turn_duration_seconds_count",
                "reason=\"completed\"", "service=\"lead-service\"") >= 2);
        await().atMost(PATIENCE).until(() -> sum(Service.TEAMMATE, "cohort_turn_duration_seconds_count",
                "reason=\"completed\"", "service=\"teammate-service\"") >= 1);
        // the markers were really in play: the model saw the outputs, so a clean log is not an empty session
        String seen = stack.model.requests().stream().map(r -> r.body().toString()).reduce("", String::concat);
        assertThat(seen).contains(PROMPT, TEAMMATE_PROMPT, LEAD_OUTPUT, TEAMMATE_OUTPUT);
        assertThat(stack.model.requests()).extracting(RecordedRequest::agent).contains(TEAM + "/lead",
                TEAM + "/" + TEAMMATE);

        Map<String, String> secrets = new LinkedHashMap<>();
        secrets.put("model API key", API_KEY);
        secrets.put("prompt", PROMPT);
        secrets.put("teammate prompt", TEAMMATE_PROMPT);
        secrets.put("lead tool output", LEAD_OUTPUT);
        secrets.put("teammate tool output", TEAMMATE_OUTPUT);
        secrets.put("lead answer", LEAD_ANSWER);
        secrets.put("teammate answer", TEAMMATE_ANSWER);
        secrets.put("cron prompt", CRON_PROMPT);
        secrets.put("API token", RelStack.API_TOKEN);
        secrets.put("internal token", RelStack.INTERNAL_TOKEN);
        secrets.put("tool-runner token", RelStack.RUNNER_TOKEN);
        if (stack.pg.password().length() >= 12) {
            secrets.put("database password", stack.pg.password());
        }

        Map<Service, List<JsonNode>> records = new LinkedHashMap<>();
        Path kept = Files.createDirectories(Path.of("target", "log-hygiene"));
        for (Service s : Service.values()) {
            String log = Files.readString(stack.process(s).log());
            Files.writeString(kept.resolve(s.module + ".log"), log); // for a person to read what the services log
            assertThat(log).as(s.module + "'s log").isNotBlank();
            secrets.forEach((what, secret) -> assertThat(log).as("the " + what + " in " + s.module + "'s log")
                    .doesNotContain(secret));
            records.put(s, jsonRecords(s, log));
        }

        // JSON lines with the level, the logger and the agent fields of the MDC
        for (var e : records.entrySet()) {
            assertThat(e.getValue()).as(e.getKey().module + " logs JSON").isNotEmpty();
            assertThat(e.getValue()).allSatisfy(r -> assertThat(r.has("level") && r.has("message")
                    && r.has("loggerName")).as(r.toString()).isTrue());
        }
        assertThat(turnEnds(records.get(Service.LEAD), "lead")).as("the lead's turn ends, with their MDC").isNotEmpty();
        assertThat(turnEnds(records.get(Service.TEAMMATE), TEAMMATE)).as("the teammate's turn ends, with their MDC")
                .isNotEmpty();
        // what the lead logs inside its spawn_teammate call carries the call and the turn
        assertThat(records.get(Service.LEAD)).filteredOn(r -> r.path("message").asText().contains("spawned"))
                .anySatisfy(r -> {
                    assertThat(r.path("mdc").path("call").asText()).isEqualTo("logs-b");
                    assertThat(r.path("mdc").path("agent").asText()).isEqualTo("lead");
                    assertThat(r.path("mdc").path("turn").asText()).isNotBlank();
                });
        // the tool runner's records of this team's calls (at least: the team workspace's first use) carry the call id
        assertThat(records.get(Service.TOOL_RUNNER)).filteredOn(r -> TEAM.equals(r.path("mdc").path("team").asText()))
                .isNotEmpty().allSatisfy(r -> assertThat(r.path("mdc").path("call").asText()).isNotBlank());

        // the engine's metrics on both agent services (names the Grafana dashboard queries)
        assertThat(sum(Service.LEAD, "cohort_model_calls_total", "outcome=\"ok\"", "service=\"lead-service\""))
                .isGreaterThanOrEqualTo(3);
        assertThat(sum(Service.LEAD, "cohort_tool_call_duration_seconds_count", "tool=\"bash\"", "outcome=\"ok\""))
                .isGreaterThanOrEqualTo(1);
        assertThat(sum(Service.LEAD, "cohort_tool_call_duration_seconds_count", "tool=\"spawn_teammate\""))
                .isGreaterThanOrEqualTo(1);
        assertThat(sum(Service.TEAMMATE, "cohort_tool_call_duration_seconds_count", "tool=\"bash\"",
                "service=\"teammate-service\"")).isGreaterThanOrEqualTo(1);
        assertThat(metrics(Service.TEAMMATE)).contains("cohort_teammates{state=\"idle\"}",
                "cohort_teammates{state=\"running\"}", "cohort_teammates{state=\"parked\"}");
    }

    /**
     * The host's "turn … ended" records of {@code agent} in team {@link #TEAM} whose MDC carries team, agent and the
     * turn the message names.
     */
    private static List<JsonNode> turnEnds(List<JsonNode> records, String agent) {
        return records.stream().filter(r -> r.path("message").asText().contains(" ended: "))
                .filter(r -> TEAM.equals(r.path("mdc").path("team").asText())
                        && agent.equals(r.path("mdc").path("agent").asText())
                        && !r.path("mdc").path("turn").asText().isBlank()
                        && r.path("message").asText().contains("turn=" + r.path("mdc").path("turn").asText() + " "))
                .toList();
    }

    /** The log's JSON records; a line that is not JSON fails (the JVM's own lines, if any, start otherwise). */
    private static List<JsonNode> jsonRecords(Service s, String log) {
        List<JsonNode> out = new ArrayList<>();
        for (String line : log.split("\n")) {
            if (!line.startsWith("{")) {
                continue; // e.g. a JVM warning printed before logging starts
            }
            try {
                out.add(Json.MAPPER.readTree(line));
            } catch (IOException e) {
                throw new AssertionError(s.module + " logged a line that is not JSON: " + line, e);
            }
        }
        return out;
    }

    private String metrics(Service s) {
        HttpResponse<String> r = stack.managementGet(s, "/q/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** The sum of {@code metric}'s series whose labels contain all of {@code labels}. */
    private double sum(Service s, String metric, String... labels) {
        double total = 0;
        for (String line : metrics(s).split("\n")) {
            if (line.startsWith(metric + "{") && Arrays.stream(labels).allMatch(line::contains)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    // ---- the scripted session

    private static String rules() {
        String lead = TEAM + "/lead";
        String tm = TEAM + "/" + TEAMMATE;
        List<ObjectNode> rules = new ArrayList<>();
        rules.add(rule("logs-lead-result", Map.of("agent", lead, "lastMessage", "from=\"" + TEAMMATE + "\""),
                text("noted")));
        rules.add(rule("logs-lead-answer", Map.of("agent", lead, "lastRole", "tool"), text("all set " + LEAD_ANSWER)));
        rules.add(rule("logs-lead-work", Map.of("agent", lead, "lastRole", "user", "lastMessage", PROMPT), calls(
                call("logs-a", "bash", Map.of("command", "echo LEADTOOL$(echo OUT)SECRET" + RUN)),
                call("logs-b", "spawn_teammate", Map.of("name", TEAMMATE, "role", "writer", "prompt",
                        "write it up " + TEAMMATE_PROMPT)))));
        rules.add(rule("logs-lead-any", Map.of("agent", lead), text("ok")));
        rules.add(rule("logs-tm-answer", Map.of("agent", tm, "lastRole", "tool"), text("written " + TEAMMATE_ANSWER)));
        rules.add(rule("logs-tm-work", Map.of("agent", tm, "lastRole", "user"), calls(
                call("logs-t", "bash", Map.of("command", "echo TMTOOL$(echo OUT)SECRET" + RUN)))));
        return Workload.join(rules);
    }




}

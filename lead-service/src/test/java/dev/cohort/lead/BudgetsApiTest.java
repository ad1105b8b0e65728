package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.AssistantMessage;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.budgets.TeamBudgets;
import dev.cohort.lead.events.EventRepository;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Budgets that act in lead-service through real parts: the per-team budgets API on PostgreSQL (V15), and
 * the lead's turn against the scripted model stopping on the team's own budget with {@code budget_warning} /
 * {@code budget_exceeded} in the event store, and working again once the budget is raised.
 */
@QuarkusTest
class BudgetsApiTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Inject
    EventRepository eventStore;

    @Inject
    TeamBudgets teamBudgets;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
    }

    private static String newTeam(String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("id", team)).post("/api/v1/teams").then().statusCode(201);
        return team;
    }

    private static ValidatableResponse put(String team, String body) {
        return given().contentType("application/json").body(body).put("/api/v1/teams/" + team + "/budgets").then();
    }

    @Test
    void aTeamsBudgetsAreTheDefaultsWithTheFieldsItSetAndNullGoesBackToTheDefault() {
        String team = newTeam("budgets");
        given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200)
                .body("team", equalTo(team)).body("tokensPerTurn", equalTo(0)).body("costPerTeamUsd", equalTo(0.0f))
                .body("defaults.tokensPerAgent", equalTo(0)).body("overrides", equalTo(Map.of()));

        put(team, "{\"tokensPerTurn\": 1000, \"costPerTeamUsd\": 2.5}").statusCode(200)
                .body("tokensPerTurn", equalTo(1000)).body("costPerTeamUsd", equalTo(2.5f))
                .body("overrides.tokensPerTurn", equalTo(1000)).body("overrides", not(hasKey("tokensPerAgent")));
        // a later PUT changes only what it names
        put(team, "{\"tokensPerAgent\": 5000}").statusCode(200)
                .body("tokensPerTurn", equalTo(1000)).body("tokensPerAgent", equalTo(5000));
        put(team, "{\"tokensPerTurn\": null}").statusCode(200)
                .body("tokensPerTurn", equalTo(0)).body("overrides", not(hasKey("tokensPerTurn")))
                .body("overrides.tokensPerAgent", equalTo(5000)).body("overrides.costPerTeamUsd", equalTo(2.5f));
        given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200).body("tokensPerAgent", equalTo(5000));
    }

    @Test
    void badBudgetsAreA400NamingTheFieldAndAnUnknownTeamA404() {
        String team = newTeam("budgets-bad");
        put(team, "{\"tokensPerWeek\": 5}").statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("unknown budget \"tokensPerWeek\""));
        put(team, "{\"tokensPerTurn\": -1}").statusCode(400)
                .body("detail", equalTo("tokensPerTurn must be 0 (unlimited) or positive, not -1"));
        put(team, "{\"costPerAgentUsd\": -0.5}").statusCode(400).body("detail", containsString("costPerAgentUsd"));
        put(team, "{\"tokensPerTeam\": 1.5}").statusCode(400)
                .body("detail", equalTo("tokensPerTeam counts tokens: a whole number, not 1.5"));
        put(team, "{\"tokensPerTeam\": \"lots\"}").statusCode(400)
                .body("detail", containsString("tokensPerTeam must be a number"));
        put(team, "[1]").statusCode(400).body("detail", containsString("body required"));
        // nothing was stored by the refused requests
        given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200).body("overrides", equalTo(Map.of()));

        given().get("/api/v1/teams/no-such-team/budgets").then().statusCode(404).contentType("application/problem+json");
        put("no-such-team", "{\"tokensPerTurn\": 5}").statusCode(404);
    }

    private List<JsonNode> stored(String team) {
        return eventStore.after(team, 0, 100_000).stream().map(e -> (JsonNode) Json.MAPPER.valueToTree(e)).toList();
    }

    private List<JsonNode> ofType(String team, String type) {
        return stored(team).stream().filter(e -> e.get("type").asText().equals(type)).toList();
    }

    private JsonNode awaitTurnCompleted(String team, String promptId) {
        return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(300)).until(() -> ofType(team,
                "turn_completed").stream().filter(e -> promptId.equals(e.path("promptId").asText()))
                .findFirst().orElse(null), e -> e != null);
    }

    /** Every call of the team's lead: one bash call worth 300 tokens; "finish…" ends the turn. */
    private void scriptSpendingLead(String team) {
        model.append("{\"rules\":[{\"name\":\"done-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\","
                + "\"lastMessage\":\"^finish\"},\"reply\":{\"text\":\"finished\",\"usage\":{\"prompt_tokens\":250,"
                + "\"completion_tokens\":50}}},{\"name\":\"spend-" + team + "\",\"match\":{\"agent\":\"" + team
                + "/lead\"},\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"echo step\"}}],"
                + "\"usage\":{\"prompt_tokens\":250,\"completion_tokens\":50}}}]}");
    }

    private static String prompt(String team, String text) {
        return given().contentType("application/json").body(Map.of("text", text))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
    }

    @Test
    void theLeadStopsOnTheTeamsAgentBudgetWarnsOnceAndRunsAgainOnceTheBudgetIsRaised() {
        String team = newTeam("budgets-run");
        put(team, "{\"tokensPerAgent\": 1000}").statusCode(200);
        scriptSpendingLead(team);

        JsonNode first = awaitTurnCompleted(team, prompt(team, "spend"));
        assertThat(first.path("data").path("reason").asText()).isEqualTo("budget_exceeded");
        assertThat(first.path("data").path("text").asText())
                .isEqualTo("Stopped: agent " + team + "/lead used 1200 tokens, its budget is 1000.");
        assertThat(ofType(team, "budget_warning")).singleElement().satisfies(w -> {
            assertThat(w.path("agent").asText()).isEqualTo("lead");
            assertThat(w.path("data").path("budget").asText()).isEqualTo("tokensPerAgent");
            assertThat(w.path("data").path("used").asLong()).isEqualTo(900);
            assertThat(w.path("data").path("percent").asLong()).isEqualTo(90);
        });
        assertThat(ofType(team, "budget_exceeded")).singleElement().satisfies(e -> {
            assertThat(e.path("data").path("budget").asText()).isEqualTo("tokensPerAgent");
            assertThat(e.path("data").path("scope").asText()).isEqualTo("agent");
            assertThat(e.path("data").path("used").asLong()).isEqualTo(1200);
            assertThat(e.path("data").path("limit").asLong()).isEqualTo(1000);
        });

        // over budget: the next prompt stops at its first step, without a model call
        JsonNode second = awaitTurnCompleted(team, prompt(team, "finish"));
        assertThat(second.path("data").path("reason").asText()).isEqualTo("budget_exceeded");
        assertThat(second.path("data").path("modelCalls").asInt()).isZero();

        // raised through the API: the next prompt runs
        put(team, "{\"tokensPerAgent\": 10000}").statusCode(200);
        JsonNode third = awaitTurnCompleted(team, prompt(team, "finish"));
        assertThat(third.path("data").path("reason").asText()).isEqualTo("completed");
        assertThat(third.path("data").path("text").asText()).isEqualTo("finished");
        assertThat(ofType(team, "budget_warning")).hasSize(1); // 1500 of 10000: no new crossing
    }

    // --- the limits on the cron jobs the team's agents create ---

    @Test
    void theBudgetsShowTheLimitsOnCronJobsTheAgentsCreateAsTheSchedulerReportsThemOrSayItIsUnavailable() throws Exception {
        String team = newTeam("budgets-cron");
        List<String> asked = new CopyOnWriteArrayList<>();
        HttpServer scheduler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        scheduler.createContext("/", exchange -> {
            asked.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            byte[] body = ("{\"team\":\"" + team + "\",\"maxJobsPerTeam\":100,\"minIntervalSeconds\":60,"
                    + "\"maxModelJobsPerTeam\":10,\"modelMinIntervalSeconds\":600,\"jobs\":3,\"modelJobs\":2}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        scheduler.start();
        try {
            teamBudgets.useScheduler(URI.create("http://127.0.0.1:" + scheduler.getAddress().getPort()));
            given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200)
                    .body("cronJobs.approval", equalTo("ask"))
                    .body("cronJobs.scheduler", equalTo(Map.of("team", team, "maxJobsPerTeam", 100,
                            "minIntervalSeconds", 60, "maxModelJobsPerTeam", 10, "modelMinIntervalSeconds", 600,
                            "jobs", 3, "modelJobs", 2)))
                    .body("cronJobs.schedulerUnavailable", nullValue());
            assertThat(asked).containsExactly("GET /api/v1/teams/" + team + "/crons/limits");

            // the scheduler down: the budgets still answer, and say why the cron limits are missing
            teamBudgets.useScheduler(URI.create("http://127.0.0.1:1"));
            given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200)
                    .body("tokensPerTeamPerDay", equalTo(5000000)).body("cronJobs.approval", equalTo("ask"))
                    .body("cronJobs.scheduler", nullValue())
                    .body("cronJobs.schedulerUnavailable", startsWith("scheduler-service at http://127.0.0.1:1 did not"
                            + " answer: "));
        } finally {
            teamBudgets.useScheduler(null);
            scheduler.stop(0);
        }
    }

    // --- the team's budgets per UTC day ---

    @Test
    void theDayBudgetsAreReadAndSetLikeTheOthersAndBadOnesAreRefused() {
        String team = newTeam("budgets-day");
        given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200)
                // a fresh team has a daily token budget (Budgets.DEFAULT_TOKENS_PER_TEAM_PER_DAY); the cost one is unset
                .body("tokensPerTeamPerDay", equalTo(5000000)).body("costPerTeamPerDayUsd", equalTo(0.0f))
                .body("defaults.tokensPerTeamPerDay", equalTo(5000000))
                .body("defaults.costPerTeamPerDayUsd", equalTo(0.0f));
        put(team, "{\"tokensPerTeamPerDay\": 2000000, \"costPerTeamPerDayUsd\": 12.5}").statusCode(200)
                .body("tokensPerTeamPerDay", equalTo(2000000)).body("costPerTeamPerDayUsd", equalTo(12.5f))
                .body("overrides.tokensPerTeamPerDay", equalTo(2000000))
                .body("overrides.costPerTeamPerDayUsd", equalTo(12.5f)).body("overrides", not(hasKey("tokensPerTeam")));
        // stored (a second GET reads PostgreSQL), and null sets one back to the default
        given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200)
                .body("tokensPerTeamPerDay", equalTo(2000000));
        put(team, "{\"costPerTeamPerDayUsd\": null}").statusCode(200).body("costPerTeamPerDayUsd", equalTo(0.0f))
                .body("overrides", not(hasKey("costPerTeamPerDayUsd"))).body("tokensPerTeamPerDay", equalTo(2000000));

        put(team, "{\"tokensPerTeamPerDay\": -1}").statusCode(400).contentType("application/problem+json")
                .body("detail", equalTo("tokensPerTeamPerDay must be 0 (unlimited) or positive, not -1"));
        put(team, "{\"costPerTeamPerDayUsd\": -0.01}").statusCode(400)
                .body("detail", equalTo("costPerTeamPerDayUsd must be 0 (unlimited) or positive, not -0.01"));
        put(team, "{\"tokensPerTeamPerDay\": 2.5}").statusCode(400)
                .body("detail", equalTo("tokensPerTeamPerDay counts tokens: a whole number, not 2.5"));
        put(team, "{\"costPerTeamPerDayUsd\": \"much\"}").statusCode(400)
                .body("detail", containsString("costPerTeamPerDayUsd must be a number"));
        put(team, "{\"tokensPerDay\": 5}").statusCode(400).body("detail", containsString("tokensPerTeamPerDay"));
        // nothing changed by the refused requests
        given().get("/api/v1/teams/" + team + "/budgets").then().statusCode(200)
                .body("tokensPerTeamPerDay", equalTo(2000000)).body("overrides", not(hasKey("costPerTeamPerDayUsd")));
    }

    /** A stored model call of {@code agent} at {@code ts} worth {@code tokens} prompt tokens (the ledger's row). */
    private void call(String team, String agent, Instant ts, long tokens) {
        Event e = Event.of(team, agent, new AssistantMessage("turn-" + Ids.newId(), "stop", tokens, 0, "x", List.of(),
                null, "m", 0, 0.0));
        eventStore.append(new Event(Ids.newId(), e.team(), e.agent(), 0, ts, EventType.ASSISTANT_MESSAGE, e.data()));
    }

    @Test
    void theDaysUsageIsTheLedgerFromMidnightUtcOfTheClocksDay() {
        String team = newTeam("budgets-clock");
        call(team, "bob", Instant.parse("2026-01-10T23:59:59Z"), 5000);
        call(team, "lead", Instant.parse("2026-01-11T00:00:00Z"), 100);
        call(team, "bob", Instant.parse("2026-01-11T09:30:00Z"), 20);
        try {
            teamBudgets.useClock(Clock.fixed(Instant.parse("2026-01-11T12:00:00Z"), ZoneOffset.UTC));
            assertThat(teamBudgets.usageToday(team)).isEqualTo(new Usage(120, 0, 2, 0, 0));
            assertThat(teamBudgets.dayUsage(team).day()).isEqualTo(LocalDate.of(2026, 1, 11));
            // a second before midnight, yesterday's call still counts (the others are the day's future)
            teamBudgets.useClock(Clock.fixed(Instant.parse("2026-01-10T23:59:59.500Z"), ZoneOffset.UTC));
            assertThat(teamBudgets.usageToday(team).inputTokens()).isEqualTo(5120);
            // the clock's zone is not the day's: Tokyo's 12 January 08:00 is 23:00 UTC on the 11th
            teamBudgets.useClock(Clock.fixed(Instant.parse("2026-01-11T23:00:00Z"), ZoneId.of("Asia/Tokyo")));
            assertThat(teamBudgets.usageToday(team).inputTokens()).isEqualTo(120);
            // the internal team API hands the day's usage and its day to teammate hosts
            given().header("Authorization", "Bearer " + internalToken).get("/internal/v1/teams/" + team).then()
                    .statusCode(200).body("usageDay", equalTo("2026-01-11"))
                    .body("usageToday.inputTokens", equalTo(120)).body("usageToday.calls", equalTo(2));
        } finally {
            teamBudgets.useClock(null);
        }
    }

    @ConfigProperty(name = "cohort.internal.token")
    String internalToken;

    @Test
    void theLeadStopsOnTheTeamsDayBudgetYesterdayDoesNotCountAndRaisingItLetsWorkContinue() {
        String team = newTeam("budgets-daily");
        Instant midnight = LocalDate.now(ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();
        // yesterday the team spent a million tokens; today another agent 700
        call(team, "ghost", midnight.minusSeconds(60), 1_000_000);
        call(team, "ghost", midnight, 700);
        put(team, "{\"tokensPerTeamPerDay\": 1000}").statusCode(200);
        scriptSpendingLead(team);

        JsonNode first = awaitTurnCompleted(team, prompt(team, "spend"));
        assertThat(first.path("data").path("reason").asText()).isEqualTo("budget_exceeded");
        // yesterday's million did not stop it before its first call
        assertThat(first.path("data").path("modelCalls").asInt()).isPositive();
        assertThat(first.path("data").path("text").asText())
                .matches("Stopped: team " + team + " used \\d+ tokens today \\(UTC\\), its daily budget is 1000; "
                        + "it resets at 00:00 UTC\\.");
        assertThat(ofType(team, "budget_warning")).singleElement().satisfies(w -> {
            assertThat(w.path("agent").asText()).isEqualTo("lead");
            assertThat(w.path("data").path("budget").asText()).isEqualTo("tokensPerTeamPerDay");
            assertThat(w.path("data").path("scope").asText()).isEqualTo("team-day");
            assertThat(w.path("data").path("used").asLong()).isBetween(800L, 1300L);
        });
        assertThat(ofType(team, "budget_exceeded")).singleElement().satisfies(e -> {
            assertThat(e.path("data").path("budget").asText()).isEqualTo("tokensPerTeamPerDay");
            assertThat(e.path("data").path("scope").asText()).isEqualTo("team-day");
            assertThat(e.path("data").path("used").asLong()).isGreaterThanOrEqualTo(1000);
            assertThat(e.path("data").path("limit").asLong()).isEqualTo(1000);
        });

        // over the day's budget: the next prompt stops at its first step, once the ledger holds the lead's calls
        await().atMost(Duration.ofMinutes(1)).until(() -> teamBudgets.usageToday(team).totalTokens() >= 1000);
        JsonNode second = awaitTurnCompleted(team, prompt(team, "finish"));
        assertThat(second.path("data").path("reason").asText()).isEqualTo("budget_exceeded");
        assertThat(second.path("data").path("modelCalls").asInt()).isZero();

        // raised through the API: the next prompt runs
        put(team, "{\"tokensPerTeamPerDay\": 100000}").statusCode(200);
        JsonNode third = awaitTurnCompleted(team, prompt(team, "finish"));
        assertThat(third.path("data").path("reason").asText()).isEqualTo("completed");
        assertThat(third.path("data").path("text").asText()).isEqualTo("finished");
    }
}

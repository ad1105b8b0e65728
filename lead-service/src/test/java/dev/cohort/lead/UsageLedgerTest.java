package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.ModelPrices;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.AssistantMessage;
import dev.cohort.core.protocol.payload.TurnStarted;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.usage.UsageRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The usage ledger {@code lead.usage} through real parts: the lead's own model calls (scripted model over HTTP, the
 * step save's transaction), a teammate's {@code assistant_message} arriving unsequenced on the real
 * {@code cohort.events} (the sequencer's path, redelivered once), batches stored directly; the usage endpoint, the
 * Prometheus counters on {@code /q/metrics} and {@code teamUsageSince}.
 */
@QuarkusTest
class UsageLedgerTest {
    static final Duration KAFKA = Duration.ofMinutes(2);

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @Inject
    EventRepository eventStore;

    @Inject
    UsageRepository usage;

    @Inject
    AgroalDataSource ds;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
    }

    private List<JsonNode> stored(String team, String type) {
        return eventStore.after(team, 0, 100_000).stream().filter(e -> e.type().wire().equals(type))
                .map(e -> (JsonNode) Json.MAPPER.valueToTree(e)).toList();
    }

    private static JsonNode usage(String team, String query) {
        String body = given().get("/api/v1/teams/" + team + "/usage" + query).then().statusCode(200)
                .contentType("application/json").extract().asString();
        return Json.MAPPER.valueToTree(Json.read(body, JsonNode.class));
    }

    /** The value of the one Prometheus sample of {@code name} whose labels include all of {@code labels}. */
    private static double metric(String name, String... labels) {
        String text = given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").then().statusCode(200).extract().asString();
        List<Double> found = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^" + name + "\\{([^}]*)\\} (\\S+)$").matcher(text);
        while (m.find()) {
            String l = m.group(1);
            boolean all = true;
            for (String want : labels) {
                all &= l.contains(want);
            }
            if (all) {
                found.add(Double.parseDouble(m.group(2)));
            }
        }
        assertThat(found).as(name + " with " + String.join(",", labels)).hasSize(1);
        return found.getFirst();
    }

    @Test
    void theLeadsModelCallsAreRecordedOncePerAssistantMessageWithModelCachedTokensAndPrompt() throws Exception {
        String team = LeadAgentTest.newTeam("usage-lead");
        model.append("{\"rules\":["
                + "{\"name\":\"u1-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"count my usage\"},"
                + "\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"echo counted\"}}],"
                + "\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":100,\"cached_tokens\":400}}},"
                + "{\"name\":\"u2-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastRole\":\"tool\"},"
                + "\"reply\":{\"text\":\"counted\",\"usage\":{\"prompt_tokens\":1200,\"completion_tokens\":20}}}]}");
        String promptId = LeadAgentTest.prompt(team, "count my usage");

        JsonNode done = await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(300))
                .until(() -> stored(team, "turn_completed").stream().findFirst().orElse(null), e -> e != null);
        assertThat(done.at("/data/status").asText()).isEqualTo("completed");
        assertThat(done.at("/data/usage/inputTokens").asLong()).isEqualTo(2200);
        assertThat(done.at("/data/usage/cachedTokens").asLong()).isEqualTo(400);
        assertThat(done.at("/data/agentUsage/cachedTokens").asLong()).isGreaterThanOrEqualTo(400);
        String turnId = done.at("/data/turnId").asText();

        List<JsonNode> msgs = stored(team, "assistant_message");
        assertThat(msgs).hasSize(2);
        String modelName = msgs.getFirst().at("/data/model").asText();
        assertThat(modelName).isNotBlank();
        assertThat(msgs.getFirst().at("/data/cachedTokens").asLong()).isEqualTo(400);
        assertThat(msgs.get(1).at("/data/cachedTokens").asLong()).isZero();

        JsonNode byAgent = usage(team, "?by=agent");
        assertThat(byAgent.path("team").asText()).isEqualTo(team);
        assertThat(byAgent.path("by").asText()).isEqualTo("agent");
        assertThat(byAgent.path("rows")).hasSize(1);
        JsonNode lead = byAgent.path("rows").get(0);
        assertThat(lead.path("key").asText()).isEqualTo("lead");
        assertThat(lead.path("agent").asText()).isEqualTo("lead");
        assertThat(lead.path("modelCalls").asLong()).isEqualTo(2);
        assertThat(lead.path("promptTokens").asLong()).isEqualTo(2200);
        assertThat(lead.path("completionTokens").asLong()).isEqualTo(120);
        assertThat(lead.path("cachedTokens").asLong()).isEqualTo(400);
        assertThat(lead.has("costUsd")).isTrue();
        assertThat(byAgent.path("total").path("modelCalls").asLong()).isEqualTo(2);
        assertThat(byAgent.path("total").path("promptTokens").asLong()).isEqualTo(2200);

        JsonNode byTurn = usage(team, "?by=turn");
        assertThat(byTurn.path("rows")).hasSize(1);
        assertThat(byTurn.at("/rows/0/turnId").asText()).isEqualTo(turnId);
        assertThat(byTurn.at("/rows/0/key").asText()).isEqualTo(turnId);
        assertThat(byTurn.at("/rows/0/agent").asText()).isEqualTo("lead");

        Instant ts = Instant.parse(msgs.getFirst().path("ts").asText());
        JsonNode byDay = usage(team, "?by=day");
        assertThat(byDay.at("/rows/0/day").asText()).isEqualTo(LocalDate.ofInstant(ts, ZoneOffset.UTC).toString());
        assertThat(byDay.at("/rows/0/modelCalls").asLong()).isEqualTo(msgs.size());

        // the ledger's rows: one per event, the lead's prompt attached
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT event_id, prompt_id, turn_id, model FROM lead.usage WHERE team = ? ORDER BY ts")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> ids = new ArrayList<>();
                while (rs.next()) {
                    ids.add(rs.getString(1));
                    assertThat(rs.getString(2)).isEqualTo(promptId);
                    assertThat(rs.getString(3)).isEqualTo(turnId);
                    assertThat(rs.getString(4)).isEqualTo(modelName);
                }
                assertThat(ids).containsExactly(msgs.get(0).path("id").asText(), msgs.get(1).path("id").asText());
            }
        }

        String t = "team=\"" + team + "\"";
        assertThat(metric("cohort_tokens_total", t, "agent=\"lead\"", "kind=\"prompt\"", "model=\"" + modelName + "\""))
                .isEqualTo(2200);
        assertThat(metric("cohort_tokens_total", t, "agent=\"lead\"", "kind=\"completion\"")).isEqualTo(120);
        assertThat(metric("cohort_tokens_total", t, "agent=\"lead\"", "kind=\"cached\"")).isEqualTo(400);
        // no price is configured in tests: the lead's model is priced by the built-in table
        EngineSettings.ModelPrice price = ModelPrices.builtin().find(modelName).orElseThrow();
        double cost = price.cost(1000, 100, 400, 0) + price.cost(1200, 20, 0, 0);
        assertThat(cost).isPositive();
        assertThat(metric("cohort_cost_total", t, "agent=\"lead\"")).isCloseTo(cost, offset(1e-9));
        assertThat(lead.path("costUsd").asDouble()).isCloseTo(cost, offset(1e-9));
        assertThat(lead.path("priceKnown").asBoolean(false)).isTrue();
        assertThat(msgs.getFirst().at("/data/priceKnown").asBoolean(false)).isTrue();
    }

    @Test
    void aTeammatesUnsequencedAssistantMessageIsRecordedOnceEvenWhenRedelivered() {
        String team = LeadAgentTest.newTeam("usage-mate");
        Event first = Event.of(team, "alice", new AssistantMessage("turn-a1", "tool_calls", 500, 50, null,
                List.of("bash"), null, "gpt-x", 100, 0.0125));
        TestKafka.send(Topics.EVENTS, team, Json.write(first));
        TestKafka.send(Topics.EVENTS, team, Json.write(first)); // redelivery: the same event id
        TestKafka.send(Topics.EVENTS, team, Json.write(Event.of(team, "alice", new TurnStarted("turn-a2", "message"))));
        Event second = Event.of(team, "alice", new AssistantMessage("turn-a2", "stop", 700, 70, "done", List.of(),
                null, "gpt-x", 0, 0.02));
        TestKafka.send(Topics.EVENTS, team, Json.write(second));

        // the second is on the same partition after the duplicate: once it is counted, the duplicate was handled
        await().atMost(KAFKA).pollInterval(Duration.ofMillis(300))
                .until(() -> usage(team, "?by=agent").path("total").path("modelCalls").asLong() >= 2);
        JsonNode byAgent = usage(team, "?by=agent");
        assertThat(byAgent.path("rows")).hasSize(1);
        JsonNode alice = byAgent.at("/rows/0");
        assertThat(alice.path("agent").asText()).isEqualTo("alice");
        assertThat(alice.path("modelCalls").asLong()).isEqualTo(2);
        assertThat(alice.path("promptTokens").asLong()).isEqualTo(1200);
        assertThat(alice.path("completionTokens").asLong()).isEqualTo(120);
        assertThat(alice.path("cachedTokens").asLong()).isEqualTo(100);
        assertThat(alice.path("costUsd").asDouble()).isCloseTo(0.0325, offset(1e-9));

        JsonNode byTurn = usage(team, "?by=turn&agent=alice");
        assertThat(byTurn.path("rows")).extracting(r -> r.path("turnId").asText()).containsExactly("turn-a1", "turn-a2");
        assertThat(byTurn.at("/rows/0/costUsd").asDouble()).isCloseTo(0.0125, offset(1e-9));
        assertThat(usage(team, "?by=agent&agent=bob").path("rows")).isEmpty();
        String tomorrow = LocalDate.now(ZoneOffset.UTC).plusDays(2).toString();
        JsonNode none = usage(team, "?by=day&since=" + tomorrow);
        assertThat(none.path("rows")).isEmpty();
        assertThat(none.at("/total/modelCalls").asLong()).isZero();

        String t = "team=\"" + team + "\"";
        assertThat(metric("cohort_cost_total", t, "agent=\"alice\"", "model=\"gpt-x\"")).isCloseTo(0.0325, offset(1e-9));
        assertThat(metric("cohort_tokens_total", t, "agent=\"alice\"", "kind=\"prompt\"")).isEqualTo(1200);
        assertThat(metric("cohort_tokens_total", t, "agent=\"alice\"", "kind=\"cached\"")).isEqualTo(100);
    }

    @Test
    void cacheWritesAreCountedAndCallsWithoutAPriceAreReportedAsUnknownPriceNotAsFree() {
        String team = LeadAgentTest.newTeam("usage-price");
        // alice: a priced call with cache reads and writes; bob: a call whose model has no price; carol: an event from
        // before priceKnown, with tokens and no cost (taken as unpriced), and one with a cost (priced)
        eventStore.append(Event.of(team, "alice", new AssistantMessage("turn-a", "stop", 5000, 100, "x", List.of(),
                null, "claude-sonnet-4-5", 3000, 0.0042, 1500, true)));
        eventStore.append(Event.of(team, "bob", new AssistantMessage("turn-b", "stop", 900, 30, "x", List.of(), null,
                "my-local-model", 0, 0, 0, false)));
        eventStore.append(legacy(team, "carol", new AssistantMessage("turn-c", "stop", 10, 1, "x", List.of(), null,
                "old-model", 0, 0)));
        eventStore.append(legacy(team, "carol", new AssistantMessage("turn-c", "stop", 10, 1, "x", List.of(), null,
                "gpt-4o", 0, 0.001)));

        JsonNode report = usage(team, "?by=agent");
        JsonNode alice = report.at("/rows/0");
        assertThat(alice.path("agent").asText()).isEqualTo("alice");
        assertThat(alice.path("cachedTokens").asLong()).isEqualTo(3000);
        assertThat(alice.path("cacheWriteTokens").asLong()).isEqualTo(1500);
        assertThat(alice.path("priceKnown").asBoolean(false)).isTrue();
        assertThat(alice.path("unpricedCalls").asLong()).isZero();
        assertThat(alice.path("costUsd").asDouble()).isCloseTo(0.0042, offset(1e-12));
        JsonNode bob = report.at("/rows/1");
        assertThat(bob.path("priceKnown").asBoolean(true)).isFalse();
        assertThat(bob.path("unpricedCalls").asLong()).isEqualTo(1);
        assertThat(bob.path("unpricedModels")).extracting(JsonNode::asText).containsExactly("my-local-model");
        JsonNode carol = report.at("/rows/2");
        assertThat(carol.path("modelCalls").asLong()).isEqualTo(2);
        assertThat(carol.path("unpricedCalls").asLong()).isEqualTo(1);
        assertThat(carol.path("unpricedModels")).extracting(JsonNode::asText).containsExactly("old-model");

        JsonNode total = report.path("total");
        assertThat(total.path("modelCalls").asLong()).isEqualTo(4);
        assertThat(total.path("cacheWriteTokens").asLong()).isEqualTo(1500);
        assertThat(total.path("priceKnown").asBoolean(true)).isFalse();
        assertThat(total.path("unpricedCalls").asLong()).isEqualTo(2);
        assertThat(total.path("unpricedModels")).extracting(JsonNode::asText)
                .containsExactly("my-local-model", "old-model");
        assertThat(total.path("costUsd").asDouble()).isCloseTo(0.0052, offset(1e-12));
        // a day's usage for the per-day budget carries both, too
        Usage all = usage.teamUsageSince(team, Instant.EPOCH);
        assertThat(all.cacheWriteTokens()).isEqualTo(1500);
        assertThat(all.unpricedCalls()).isEqualTo(2);
        assertThat(metric("cohort_tokens_total", "team=\"" + team + "\"", "agent=\"alice\"", "kind=\"cache_write\""))
                .isEqualTo(1500);
    }

    /** {@code m} as an {@code assistant_message} from before {@code cacheWriteTokens} and {@code priceKnown}. */
    private static Event legacy(String team, String agent, AssistantMessage m) {
        ObjectNode data = Json.MAPPER.valueToTree(m);
        data.remove(List.of("priceKnown", "cacheWriteTokens"));
        return Event.of(team, agent, EventType.ASSISTANT_MESSAGE, data);
    }

    private static Event at(String team, String agent, Instant ts, long in, double cost) {
        Event e = Event.of(team, agent, new AssistantMessage("turn-" + agent, "stop", in, 1, "x", List.of(), null,
                "m", 0, cost));
        return new Event(Ids.newId(), e.team(), e.agent(), 0, ts, EventType.ASSISTANT_MESSAGE, e.data());
    }

    @Test
    void teamUsageSinceSumsTheLedgerFromAnInstantAndBatchesAreCountedOnlyWhenStored() {
        String team = LeadAgentTest.newTeam("usage-since");
        Instant today = LocalDate.now(ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();
        Event old = at(team, "lead", today.minus(1, ChronoUnit.HOURS), 5000, 5.0);
        Event a = at(team, "lead", today.plus(1, ChronoUnit.MINUTES), 100, 0.25);
        Event b = at(team, "bob", today.plus(2, ChronoUnit.MINUTES), 200, 0.5);
        eventStore.append(old);
        assertThat(eventStore.appendBatch(List.of(a, b))).hasSize(2);
        // a batch holding an event already stored stores nothing: the ledger keeps one row per event
        assertThat(eventStore.appendBatch(List.of(at(team, "carol", today.plus(3, ChronoUnit.MINUTES), 1, 1), a)))
                .isNull();
        eventStore.append(a); // a stored event again: answered with the stored form, not counted twice

        Usage since = usage.teamUsageSince(team, today);
        assertThat(since.calls()).isEqualTo(2);
        assertThat(since.inputTokens()).isEqualTo(300);
        assertThat(since.costUsd()).isCloseTo(0.75, offset(1e-9));
        assertThat(usage.teamUsageSince(team, Instant.EPOCH).calls()).isEqualTo(3);
        assertThat(usage.teamUsageSince("no-such-team", Instant.EPOCH)).isEqualTo(new Usage(0, 0, 0, 0, 0));

        JsonNode byDay = usage(team, "?by=day");
        assertThat(byDay.path("rows")).extracting(r -> r.path("day").asText()).containsExactly(
                LocalDate.ofInstant(old.ts(), ZoneOffset.UTC).toString(),
                LocalDate.ofInstant(a.ts(), ZoneOffset.UTC).toString());
        assertThat(usage(team, "?since=" + LocalDate.ofInstant(a.ts(), ZoneOffset.UTC)).path("rows"))
                .extracting(r -> r.path("agent").asText()).containsExactly("bob", "lead");
        assertThat(usage(team, "?by=agent&since=" + today).at("/total/costUsd").asDouble()).isCloseTo(0.75,
                offset(1e-9));
    }

    @Test
    void badUsageQueriesAreProblems() {
        String team = LeadAgentTest.newTeam("usage-bad");
        given().get("/api/v1/teams/" + team + "/usage?by=week").then().statusCode(400)
                .contentType("application/problem+json").body("detail", containsString("agent, turn or day"));
        given().get("/api/v1/teams/" + team + "/usage?by=agent&since=yesterday").then().statusCode(400)
                .contentType("application/problem+json").body("detail", containsString("ISO date"));
        given().queryParam("agent", " ").get("/api/v1/teams/" + team + "/usage").then().statusCode(400)
                .contentType("application/problem+json");
        given().get("/api/v1/teams/no-such-team-x1/usage?by=agent").then().statusCode(404)
                .contentType("application/problem+json").body("detail", containsString("no-such-team-x1"));
        // no by: per agent; a team without calls has no rows and zero totals
        given().get("/api/v1/teams/" + team + "/usage").then().statusCode(200).body("by", equalTo("agent"))
                .body("rows.size()", equalTo(0)).body("total.modelCalls", equalTo(0));
    }
}

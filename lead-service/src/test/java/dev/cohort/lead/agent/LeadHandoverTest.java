package dev.cohort.lead.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentState;
import dev.cohort.core.engine.Message;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.HostSettings;
import dev.cohort.core.host.OwnershipLostException;
import dev.cohort.core.host.Park;
import dev.cohort.core.host.Phase;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.model.ScriptedModelClient;
import dev.cohort.host.store.InputLedger;
import dev.cohort.host.store.PgAgentStore;
import dev.cohort.lead.agent.LeadHost;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.ModelRules;
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.lead.teams.AgentRepository.AgentRow;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Handing a lead over between owners: adopting fences out the previous owner, a revoke detaches running
 * turns at a step boundary and waits for them (bounded), and the running-turn cap queues leads instead of failing
 * them. In the module's one Quarkus boot, with the real store, tool runner and scripted model; the second "host" of
 * the fencing tests is a second adopter of the same rows.
 */
@QuarkusTest
class LeadHandoverTest {

    @ConfigProperty(name = "cohort.devstack.model-admin-url", defaultValue = "http://127.0.0.1:1")
    String modelAdmin;

    @ConfigProperty(name = "cohort.test.workspace", defaultValue = "/nonexistent")
    String workspace;

    @Inject
    LeadHost host;

    @Inject
    AgentRepository agents;

    @Inject
    PromptRepository prompts;

    @Inject
    AgroalDataSource ds;

    /** A second host's view of the same rows: the shared store over lead.agents. */
    private PgAgentStore store() {
        return new PgAgentStore(ds, "lead", InputLedger.NONE);
    }

    /** A state with a turn in progress, as a host saves it during a turn. */
    private static AgentState working(String turnId) {
        return new AgentState(AgentState.VERSION, List.of(), List.of(), 0, List.of(), null,
                new AgentState.TurnProgress(turnId, "http", false, 0, 0, null, null));
    }

    @Inject
    EventRepository eventStore;

    ScriptedModelClient model;

    @BeforeEach
    void setUp() {
        model = new ScriptedModelClient(modelAdmin);
        model.load("{\"rules\":[" + ModelRules.MEMORY_RULE + "]}");
    }

    @Test
    void afterATakeoverTheOldOwnersSaveIsRefusedAndTheNewOwnersStateSurvives() {
        String team = newTeam("fence");
        PgAgentStore store = store();
        AgentKey alice = new AgentKey(team, "alice");
        AgentRecord a = store.adopt(alice, "host-a");
        AgentRecord b = store.adopt(alice, "host-b");
        assertThat(b.version()).isGreaterThan(a.version());
        assertThat(agents.find(team, "alice").orElseThrow().owner()).isEqualTo("host-b");

        long saved = store.save(alice, working("turn-of-b"), b.version(), List.of());
        // the old owner's late save (it never saw the takeover) is refused, whoever writes first
        assertThatThrownBy(() -> store.save(alice, AgentState.empty(), a.version(), List.of()))
                .isInstanceOf(OwnershipLostException.class).hasMessageContaining(team + "/alice");
        assertThatThrownBy(() -> store.park(alice, Park.IDLE, a.version()))
                .isInstanceOf(OwnershipLostException.class);

        AgentRow now = agents.find(team, "alice").orElseThrow();
        assertThat(now.version()).isEqualTo(saved);
        assertThat(now.turnId()).isEqualTo("turn-of-b");
        assertThat(now.status()).isEqualTo("working");
        assertThat(now.owner()).isEqualTo("host-b");
    }

    @Test
    void theOldOwnerLosesEvenWhenItSavesBeforeTheNewOwnerDoes() {
        String team = newTeam("fence-first");
        PgAgentStore store = store();
        AgentKey bob = new AgentKey(team, "bob");
        AgentRecord a = store.adopt(bob, "host-a");
        AgentRecord b = store.adopt(bob, "host-b");
        assertThatThrownBy(() -> store.save(bob, working("turn-of-a"), a.version(), List.of()))
                .isInstanceOf(OwnershipLostException.class);
        store.save(bob, working("turn-of-b"), b.version(), List.of());
        assertThat(agents.find(team, "bob").orElseThrow().turnId()).isEqualTo("turn-of-b");
    }

    @Test
    void aParkedPhaseIsSavedWithWhatItWaitsForAndItsDeadlineAndReadBackOnAdopt() {
        String team = newTeam("fence-park");
        PgAgentStore store = store();
        AgentKey carol = new AgentKey(team, "carol");
        AgentRecord a = store.adopt(carol, "host-a");
        Instant deadline = Instant.parse("2030-01-01T00:00:00Z");
        store.park(carol, Park.idleUntil(deadline), a.version());
        assertThat(agents.find(team, "carol").orElseThrow().status()).isEqualTo("idle");
        AgentRecord b = store.adopt(carol, "host-b");
        assertThat(b.park()).isEqualTo(Park.idleUntil(deadline));
        store.park(carol, new Park(Phase.WAITING_REPLY, "req-1", null),
                b.version() );
        assertThat(agents.find(team, "carol").orElseThrow().status()).isEqualTo("waiting_reply");
        assertThat(store.adopt(carol, "host-c").park().waitingFor()).isEqualTo("req-1");
    }

    @Test
    void adoptingWithoutAnInstanceIdIsRefusedWithAClearError() {
        String team = newTeam("fence-bad");
        assertThatThrownBy(() -> store().adopt(new AgentKey(team, "carol"), " "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("adopting instance");
        assertThatThrownBy(() -> new PgAgentStore(ds, "lead; DROP TABLE x", InputLedger.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a schema name");
    }

    @Test
    void abandoningATurnAfterATakeoverLeavesTheNewOwnersStateAlone() {
        String team = newTeam("fence-abandon");
        model.append("{\"rules\":[" + textRule(team, "say hi " + team, "hi") + "]}");
        String promptId = prompt(team, "say hi " + team);
        assertThat(awaitTurnCompleted(team, promptId).path("data").path("status").asText()).isEqualTo("completed");
        await().atMost(Duration.ofMinutes(3)).until(() -> !host.hosting(team));

        // another replica takes the lead over and saves a turn of its own
        AgentKey lead = new AgentKey(team, Ids.LEAD);
        AgentRecord taken = store().adopt(lead, "host-b");
        long saved = store().save(lead, working("turn-of-b"), taken.version(), List.of());

        // the old owner's actor now fails unexpectedly and ends "its" turn
        host.abandonTurn(team, new IllegalStateException("injected failure"));

        AgentRow now = agents.find(team, Ids.LEAD).orElseThrow();
        assertThat(now.version()).isEqualTo(saved);
        assertThat(now.turnId()).isEqualTo("turn-of-b");
        assertThat(now.status()).isEqualTo("working");
        assertThat(now.owner()).isEqualTo("host-b");
        // nor did it report a failed turn for the new owner
        assertThat(storedEvents(team)).filteredOn(e -> e.path("type").asText().equals("turn_completed")).hasSize(1);
    }

    @Test
    void anIdleLeadKeepsItsSessionSoItsNextTurnContinuesTheConversationWithoutReadingItBack() {
        String team = newTeam("kept");
        model.append("{\"rules\":[" + textRule(team, "first " + team, "one") + ","
                + textRule(team, "second " + team, "two") + "]}");
        String first = prompt(team, "first " + team);
        assertThat(awaitTurnCompleted(team, first).path("data").path("status").asText()).isEqualTo("completed");
        // the session the turn ended with is kept while the lead idles
        await().atMost(Duration.ofMinutes(3)).until(() -> host.keeps(team) && !host.hosting(team));

        String second = prompt(team, "second " + team);
        assertThat(awaitTurnCompleted(team, second).path("data").path("status").asText()).isEqualTo("completed");
        // the second turn's request carries the first turn (the kept conversation), in order
        JsonNode request = model.requests().stream().filter(r -> (team + "/lead").equals(r.path("agent").asText()))
                .filter(r -> r.path("body").toString().contains("second " + team)).findFirst().orElseThrow();
        List<String> texts = new ArrayList<>();
        request.path("body").path("messages").forEach(m -> texts.add(m.path("content").asText()));
        assertThat(texts).containsSubsequence("first " + team, "one", "second " + team);
        await().atMost(Duration.ofMinutes(3)).until(() -> host.keeps(team));
        // and what is stored is the same conversation: a new owner reads back what the kept session saved
        AgentRecord stored = store().adopt(new AgentKey(team, Ids.LEAD), "host-check");
        assertThat(stored.state().messages()).extracting(Message::content)
                .containsSubsequence("first " + team, "one", "second " + team, "two");
        assertThat(stored.state().turn()).isNull();
    }

    @Test
    void aRevokeDetachesARunningTurnAtTheNextStepWaitsForItAndTheTurnCompletesOnceAdoptedAgain() throws Exception {
        String team = newTeam("handover");
        Path dir = Files.createDirectories(Path.of(workspace, "teams", team));
        model.append("{\"rules\":[" + blockingToolRule(team) + "," + afterToolRule(team) + "]}");
        String promptId = prompt(team, "hand over " + team);
        awaitEvent(team, "tool_call_started");

        // the tool call blocks until the file "go" exists: the hand-over must wait for it, not cut it off
        // asked at once (the step cannot end yet, so the lead is not out of it), then waited for below
        assertThat(host.detachAll(List.of(team), Duration.ZERO)).isEmpty();
        CompletableFuture<Set<String>> handover = CompletableFuture.supplyAsync(
                () -> host.detachAll(List.of(team), Duration.ofSeconds(60)));
        await().atMost(Duration.ofMinutes(3)).until(() -> Files.exists(dir.resolve("runs.txt")));
        assertThat(handover).isNotDone();
        Files.writeString(dir.resolve("go"), "");
        assertThat(handover.get(60, TimeUnit.SECONDS)).containsExactly(team);

        // kept in progress, its prompt still running, not failed
        AgentRow row = agents.find(team, Ids.LEAD).orElseThrow();
        assertThat(row.turnId()).isNotNull();
        assertThat(row.status()).isEqualTo("working");
        assertThat(prompts.runningPromptOfTurn(team, row.turnId())).contains(promptId);
        assertThat(storedEvents(team)).extracting(e -> e.path("type").asText()).doesNotContain("turn_completed");
        // handed over: a wake-up (an input consumed just before the revoke) does not start it here again
        await().atMost(Duration.ofMinutes(3)).until(() -> !host.hosting(team));
        host.wake(team);
        assertThat(host.hosting(team)).isFalse();

        // the partition comes back (or a new owner adopts it): the turn resumes and completes, the tool ran once
        host.adopt(List.of(team));
        JsonNode done = awaitTurnCompleted(team, promptId);
        assertThat(done.path("data").path("status").asText()).isEqualTo("completed");
        assertThat(Files.readAllLines(dir.resolve("runs.txt"))).containsExactly("run");
        assertThat(agents.find(team, Ids.LEAD).orElseThrow().turnId()).isNull();
    }

    @Test
    void aHandOverWaitsNoLongerThanItsTimeoutForATurnStuckInAStep() throws Exception {
        String team = newTeam("handover-late");
        Path dir = Files.createDirectories(Path.of(workspace, "teams", team));
        model.append("{\"rules\":[" + blockingToolRule(team) + "," + afterToolRule(team) + "]}");
        String promptId = prompt(team, "hand over " + team);
        await().atMost(Duration.ofMinutes(3)).until(() -> Files.exists(dir.resolve("runs.txt")));

        // the step cannot end before "go" exists, so the bounded wait returns without the team
        assertThat(host.detachAll(List.of(team), Duration.ofMillis(200))).isEmpty();

        Files.writeString(dir.resolve("go"), "");
        await().atMost(Duration.ofMinutes(3)).until(() -> host.detachAll(List.of(team), Duration.ZERO).contains(team));
        assertThat(prompts.runningPromptOfTurn(team, agents.find(team, Ids.LEAD).orElseThrow().turnId())).contains(promptId);
        host.adopt(List.of(team));
        assertThat(awaitTurnCompleted(team, promptId).path("data").path("status").asText()).isEqualTo("completed");
        assertThat(Files.readAllLines(dir.resolve("runs.txt"))).containsExactly("run");
    }

    @Test
    void withOneTurnSlotTheTurnsOfTwoTeamsQueueAndBothComplete() {
        Semaphore original = host.turnSlots();
        Semaphore one = new Semaphore(1, true);
        host.turnSlots(one);
        try {
            String a = newTeam("cap-a");
            String b = newTeam("cap-b");
            model.append("{\"rules\":[" + textRule(a, "first " + a, "done a") + "," + textRule(b, "second " + b, "done b") + "]}");
            one.acquireUninterruptibly(); // the only slot is busy: both leads must wait for it, not fail
            String pa = prompt(a, "first " + a);
            String pb = prompt(b, "second " + b);
            // both leads were woken and wait for the slot (other teams' leads may queue too)
            await().atMost(Duration.ofMinutes(3)).until(() -> host.hosting(a) && host.hosting(b) && one.getQueueLength() >= 2);
            assertThat(storedEvents(a)).extracting(e -> e.path("type").asText()).doesNotContain("turn_started");
            assertThat(storedEvents(b)).extracting(e -> e.path("type").asText()).doesNotContain("turn_started");

            one.release();
            assertThat(awaitTurnCompleted(a, pa).path("data").path("status").asText()).isEqualTo("completed");
            assertThat(awaitTurnCompleted(b, pb).path("data").path("status").asText()).isEqualTo("completed");
            await().atMost(Duration.ofMinutes(3)).until(() -> one.availablePermits() == 1);
        } finally {
            host.turnSlots(original);
        }
    }

    @Test
    void aLeadParkedOnAnApprovalHoldsNoTurnSlot() throws Exception {
        Semaphore original = host.turnSlots();
        Semaphore one = new Semaphore(1, true);
        host.turnSlots(one);
        try {
            String parkedTeam = newTeam("cap-park");
            String other = newTeam("cap-other");
            Path build = Files.createDirectories(Path.of(workspace, "teams", parkedTeam, "build"));
            model.append("{\"rules\":[" + rmRule(parkedTeam) + "," + afterToolRule(parkedTeam) + ","
                    + textRule(other, "meanwhile " + other, "ok") + "]}");
            String pp = prompt(parkedTeam, "clean the build " + parkedTeam);
            JsonNode asked = awaitEvent(parkedTeam, "approval_requested");

            // the only slot is free while the parked turn waits: another team's turn runs to its end
            String po = prompt(other, "meanwhile " + other);
            assertThat(awaitTurnCompleted(other, po).path("data").path("status").asText()).isEqualTo("completed");

            given().contentType("application/json").body(Map.of("approve", true))
                    .post("/api/v1/teams/" + parkedTeam + "/approvals/" + asked.path("data").path("approvalId").asText())
                    .then().statusCode(200);
            assertThat(awaitTurnCompleted(parkedTeam, pp).path("data").path("status").asText()).isEqualTo("completed");
            assertThat(build).doesNotExist();
        } finally {
            host.turnSlots(original);
        }
    }

    @Test
    void aCapThatLetsNoTurnRunIsRefusedWithAClearError() {
        assertThatThrownBy(() -> HostSettings.defaults("x").withMaxRunningTurns(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cohort.host.max-running-turns must be at least 1");
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static String newTeam(String prefix) {
        String team = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("id", team)).post("/api/v1/teams").then().statusCode(201);
        return team;
    }

    private static String prompt(String team, String text) {
        return given().contentType("application/json").body(Map.of("text", text))
                .post("/api/v1/teams/" + team + "/prompts").then().statusCode(202).extract().path("id");
    }

    private List<JsonNode> storedEvents(String team) {
        return eventStore.after(team, 0, 100_000).stream().map(e -> (JsonNode) Json.MAPPER.valueToTree(e)).toList();
    }

    private JsonNode awaitEvent(String team, String type) {
        return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> storedEvents(team)
                .stream().filter(e -> e.path("type").asText().equals(type)).findFirst().orElse(null), e -> e != null);
    }

    private JsonNode awaitTurnCompleted(String team, String promptId) {
        return await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> storedEvents(team)
                .stream().filter(e -> e.path("type").asText().equals("turn_completed"))
                .filter(e -> promptId.equals(e.path("promptId").asText()))
                .findFirst().orElse(null), e -> e != null);
    }

    private static String textRule(String team, String prompt, String answer) {
        return "{\"name\":\"text-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"" + prompt
                + "\"},\"reply\":{\"text\":\"" + answer + "\"}}";
    }

    /** A shell call that records that it ran, then blocks until the test creates {@code go}: a step held open. */
    private static String blockingToolRule(String team) {
        return "{\"name\":\"block-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"hand over "
                + team + "\"},\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":"
                + "\"echo run >> runs.txt; until [ -f go ]; do sleep 0.05; done; echo went\"}}]}}";
    }

    private static String rmRule(String team) {
        return "{\"name\":\"rm-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastMessage\":\"clean the build "
                + team + "\"},\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -r build\"}}]}}";
    }

    private static String afterToolRule(String team) {
        return "{\"name\":\"after-" + team + "\",\"match\":{\"agent\":\"" + team + "/lead\",\"lastRole\":\"tool\"},"
                + "\"reply\":{\"text\":\"finished\"}}";
    }
}

package dev.cohort.lead.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.function.Predicate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.ConsumerGroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Hand over instead of failing, with real lead-service processes: a turn in progress moves to
 * another replica at a step boundary and completes there, its prompt {@code done}, never failed. (a) A second
 * replica joins during a long turn and the rebalance gives it the team's partition; (b) the replica running a turn
 * gets SIGTERM (a rolling restart) and the other one takes its partitions. The SIGKILL case is {@link LeadCrashIT}.
 *
 * <p>Invariants checked in both: no prompt lost (every prompt {@code done}, listed by the one {@code turn_completed}),
 * no tool call executed twice (the file the calls append to has each line once; each call id starts and finishes
 * once in the event log and once in the tool runner's record; each scripted step after the move was asked for once),
 * no turn running on two hosts (the old owner logged the hand-over and then nothing more for the team, the new owner
 * logged the resume and the end, and the agent row's {@code owner} is the new replica).
 *
 * <p>The turn is made long by a gate instead of a clock: after its first step the scripted model keeps answering
 * "poll" calls ({@code echo gate-closed}, one a second) until the test replaces the rules with the open gate, which
 * it does only once the new owner has resumed the turn. So however slow the machine, the hand-over happens in the
 * middle of the turn, and the steps after the gate can only have run on the new owner.
 *
 * <p>One devstack, one tool runner and two lead replicas (A started with the stack, B during the first test) serve
 * both tests, in order: the second one stops A.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LeadRebalanceIT {

    private static final String GROUP = "cohort-lead";
    private static final int PARTITIONS = 4; // LeadStack's devstack topics
    /** Everything here waits for conditions; minutes keep a loaded 2-core machine (two JVMs booting) from failing it. */
    private static final Duration PATIENCE = Duration.ofMinutes(4);
    private static final String PROMPT = "hand-over test: append three lines to a file";
    private static final String SECOND_PROMPT = "second prompt during the hand-over";
    private static final String FINAL_TEXT = "all three lines written";
    private static final String LINES = "line-1\nline-2\nline-3\n";
    /** The turn keeps polling while the gate is closed: far more model calls than the default cap of 50. */
    private static final String CAP = " -Dcohort.engine.max-model-calls-per-turn=2000";

    private static Map<String, String> replica(String clientId) {
        return Map.of("JAVA_TOOL_OPTIONS", "-Dmp.messaging.incoming.lead-in.client.id=" + clientId + CAP);
    }

    private LeadStack stack;
    private ServiceProcess a;
    private ServiceProcess b;

    @BeforeAll
    void startReplicaA() {
        stack = LeadStack.start(true, null, replica("lead-a"));
        a = stack.leadProcess();
    }

    @AfterAll
    void stopEverything() {
        if (stack != null) {
            stack.close();
        }
    }

    // ---- (a) a replica joins

    @Test
    @Order(1)
    void aReplicaJoiningDuringATurnTakesTheTeamAndCompletesTheTurnWithEachToolCallRunOnce() throws Exception {
        try {
            joinDuringATurn();
        } catch (Throwable t) {
            dumpLogs("join");
            throw t;
        }
    }

    private void joinDuringATurn() throws Exception {
        // the range assignor sorts the members by member id (client id + "-" + a uuid): A ("lead-a…") keeps
        // partitions 0-1 of both topics, B ("lead-b…") gets 2-3. So a team on partition 3 moves when B joins —
        // checked against the group below, not assumed.
        String team = teamOn(Set.of(3), "join-");
        stack.createTeam(team);
        stack.model().load(script(team, false));
        String promptId = stack.prompt(team, PROMPT);

        try (EventStream sse = stack.events(team, 0)) {
            // A runs the turn: line 1 appended, and the turn is polling at the gate
            awaitInTheLoop(sse, promptId);
            String turnId = turnIdOf(sse, promptId);
            assertThat(log(a)).anyMatch(l -> l.contains("team=" + team + " agent=lead prompt=" + promptId + " turn starting"));

            b = stack.startReplica("b", replica("lead-b"));
            Map<String, Set<Integer>> assignment = awaitTwoMembers();
            assertThat(partitionsOf(assignment, "lead-b")).as("B's partitions of %s in %s", Topics.PROMPTS, assignment)
                    .contains(partitionOf(team));

            List<String> aAtGate = awaitHandedOver(team, turnId);
            stack.model().load(script(team, true));
            await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> sse.ofPrompt(promptId).stream().anyMatch(e -> e.type().equals("turn_completed")));

            assertHandedOverOnce(team, turnId, List.of(promptId), sse.ofPrompt(promptId), aAtGate);
        }
    }

    // ---- (b) a replica is stopped (rolling restart)

    @Test
    @Order(2)
    void aReplicaStoppedWithSigtermDuringATurnHandsItOverAndTheOtherCompletesItWithEachToolCallRunOnce() throws Exception {
        try {
            terminateDuringATurn();
        } catch (Throwable t) {
            dumpLogs("sigterm");
            throw t;
        }
    }

    private void terminateDuringATurn() throws Exception {
        if (b == null) {
            b = stack.startReplica("b", replica("lead-b")); // the first test failed before starting it
        }
        Set<Integer> ofA = partitionsOf(awaitTwoMembers(), "lead-a");
        String team = teamOn(ofA, "rolling-");
        stack.createTeam(team);
        stack.model().load(script(team, false));
        String promptId = stack.prompt(team, PROMPT);

        // read from B, which outlives A
        try (EventStream sse = EventStream.open(b.url() + "/api/v1/teams/" + team + "/events?since=0", null)) {
            awaitInTheLoop(sse, promptId);
            String turnId = turnIdOf(sse, promptId);
            assertThat(log(a)).anyMatch(l -> l.contains("team=" + team + " agent=lead prompt=" + promptId + " turn starting"));

            a.terminate();
            // a prompt sent while A shuts down is not lost: B injects it into the resumed turn
            String second = promptVia(b, team, SECOND_PROMPT);
            OptionalInt exit = a.awaitExit(PATIENCE);
            System.out.println("[LeadRebalanceIT] A exited after SIGTERM with " + exit);
            assertThat(exit).as("A's exit status after SIGTERM").isPresent();
            // 143 = 128 + SIGTERM: the JVM ran its shutdown (Quarkus' and the hand-over) and exited for the signal
            assertThat(exit.getAsInt()).as("A's exit status after SIGTERM").isIn(0, 143);
            assertThat(log(a)).as("A's shutdown").anyMatch(l -> l.contains("stopped in"));

            List<String> aAtGate = awaitHandedOver(team, turnId);
            // the second prompt is in the resumed turn before the gate opens (else it would start a turn of its own)
            await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> "injected".equals(promptStatus(team, second)));
            stack.model().load(script(team, true));
            await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> sse.ofPrompt(promptId).stream().anyMatch(e -> e.type().equals("turn_completed")));

            assertHandedOverOnce(team, turnId, List.of(promptId, second), sse.ofPrompt(promptId), aAtGate);
        }
        // the lead is idle, as the remaining replica sees it
        HttpResponse<String> agent = stack.send(HttpRequest.newBuilder(URI.create(b.url() + "/api/v1/teams/" + team + "/agents/lead"))
                .timeout(Duration.ofSeconds(30)).GET().build());
        assertThat(LeadStack.json(agent.body()).path("status").asText()).isEqualTo("idle");
    }

    // ---- the scenario

    /**
     * The turn: line 1, then polls at the gate, 1 s apart; with the gate open the next poll result is answered with
     * line 2, then line 3, then the final text. The polls alternate between two commands ({@code echo gate-closed-a},
     * {@code echo gate-closed-b}): the engine ends a turn that repeats the same call. Rules match on content only (a
     * resumed turn re-sends the request that was in flight), and each step has its own rule name, for the request log.
     */
    private static String script(String team, boolean gateOpen) {
        String polls = gateOpen ? """
                  {"name":"gate-open","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"gate-closed-[ab]"},
                   "reply":{"toolCalls":[%2$s]}},
                """.formatted(team + "/lead", append(2)) : """
                  {"name":"poll","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"gate-closed-a"},
                   "reply":{"delayMs":1000,"toolCalls":[%3$s]}},
                  {"name":"poll","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"gate-closed-b"},
                   "reply":{"delayMs":1000,"toolCalls":[%2$s]}},
                """.formatted(team + "/lead", poll("a"), poll("b"));
        return """
                {"rules":[
                  {"name":"start","match":{"agent":"%1$s","lastRole":"user","lastMessage":"^%2$s$"},
                   "reply":{"toolCalls":[%3$s]}},
                  {"name":"injected","match":{"agent":"%1$s","lastRole":"user","lastMessage":"^%4$s$"},
                   "reply":{"delayMs":1000,"toolCalls":[%5$s]}},
                  {"name":"first-poll","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"line-1-done"},
                   "reply":{"delayMs":1000,"toolCalls":[%5$s]}},
                %6$s  {"name":"line-3","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"line-2-done"},
                   "reply":{"toolCalls":[%7$s]}},
                  {"name":"final","match":{"agent":"%1$s","lastRole":"tool","lastMessage":"line-3-done"},
                   "reply":{"text":"%8$s"}}
                ]}""".formatted(team + "/lead", PROMPT, append(1), SECOND_PROMPT, poll("a"), polls, append(3), FINAL_TEXT);
    }

    private static String poll(String which) {
        return "{\"name\":\"bash\",\"arguments\":{\"command\":\"echo gate-closed-" + which + "\"}}";
    }

    private static String append(int n) {
        return "{\"name\":\"bash\",\"arguments\":{\"command\":\"echo line-%1$d >> lines.txt && echo line-%1$d-done\"}}"
                .formatted(n);
    }

    /** The turn ran line 1 and at least one poll: it is inside the gate loop. */
    private static void awaitInTheLoop(EventStream sse, String promptId) {
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<String> previews = finishedPreviews(sse.ofPrompt(promptId));
            return previews.stream().anyMatch(p -> p.contains("line-1-done")) && previews.stream().anyMatch(p -> p.contains("gate-closed"));
        });
    }

    /**
     * Waits until B resumed the turn and A stopped it (detached at a step boundary, or — when the boundary came after
     * the hand-over deadline — its late save refused), then returns A's log lines about the team: from here on A must
     * not write another one.
     */
    private List<String> awaitHandedOver(String team, String turnId) {
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> log(b).stream()
                .anyMatch(l -> l.contains("team=" + team + " agent=lead turn=" + turnId + " resuming after a restart or a partition move")));
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> log(a).stream()
                .anyMatch(stoppedHere(team, turnId)));
        System.out.println("[LeadRebalanceIT] " + team + " handed over; A: " + log(a).stream().filter(stoppedHere(team, turnId))
                .findFirst().orElseThrow());
        return linesAbout(a, team);
    }

    private static Predicate<String> stoppedHere(String team, String turnId) {
        return l -> l.contains("team=" + team + " agent=lead turn=" + turnId + " detached")
                || l.contains("agent=" + team + "/lead let go: ");
    }

    /** The invariants, once the turn completed on B. */
    private void assertHandedOverOnce(String team, String turnId, List<String> promptIds, List<EventStream.Received> received,
            List<String> aAtGate) throws Exception {
        List<JsonNode> events = received.stream().map(EventStream.Received::event).toList();
        List<String> types = events.stream().map(e -> e.path("type").asText()).toList();

        // no prompt lost, none failed: one turn, started once, completed once, answering every prompt
        assertThat(types.stream().filter("turn_started"::equals).count()).isEqualTo(1);
        assertThat(types).doesNotContain("error");
        List<JsonNode> completed = events.stream().filter(e -> e.path("type").asText().equals("turn_completed")).toList();
        assertThat(completed).hasSize(1);
        JsonNode done = completed.get(0).path("data");
        assertThat(done.path("turnId").asText()).isEqualTo(turnId);
        assertThat(done.path("status").asText()).isEqualTo("completed");
        assertThat(done.path("text").asText()).isEqualTo(FINAL_TEXT);
        assertThat(StreamSupport.stream(done.path("promptIds").spliterator(), false).map(JsonNode::asText).toList())
                .containsExactlyInAnyOrderElementsOf(promptIds);
        // the host marks the prompts done (and logs the turn's end) just after turn_completed is stored: awaited
        for (String p : promptIds) {
            await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(promptStatus(team, p)).as("status of prompt %s", p).isEqualTo("done"));
        }

        // each tool call ran once: every line appended once, in order ...
        assertThat(Files.readString(workspaceOf(team).resolve("lines.txt"))).isEqualTo(LINES);
        // ... every call id started once and finished once ...
        List<String> started = callIds(events, "tool_call_started");
        List<String> finished = callIds(events, "tool_call_finished");
        assertThat(started).doesNotHaveDuplicates();
        assertThat(finished).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(started);
        assertThat(finishedPreviews(received).stream().filter(p -> p.contains("-done")).toList())
                .containsExactly("line-1-done", "line-2-done", "line-3-done");
        // ... and the tool runner ran exactly those calls, once each (housekeeping calls of the engine have ids of
        // their own: skill discovery, the read of the workspace's hook settings at each turn start). The runner stores
        // a call's result after answering it (off the latency path), so the last call's may come after the turn: awaited
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(toolCalls(team)).allSatisfy(c -> assertThat(c.get(1)).isEqualTo("done")));
        List<List<String>> runner = toolCalls(team);
        List<String> runnerIds = runner.stream().map(c -> c.get(0)).toList();
        assertThat(runnerIds).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(started);

        // the steps after the gate were asked for once each: nothing repeated them on another host (a poll request
        // in flight during the hand-over may be re-sent by the new owner: its answer was never saved nor run)
        List<RecordedRequest> requests = requestsOf(team);
        assertThat(requests.stream().map(RecordedRequest::rule)
                .filter(r -> r != null && Set.of("start", "gate-open", "line-3", "final").contains(r)).toList())
                .containsExactly("start", "gate-open", "line-3", "final");
        // the conversation the model saw last holds every prompt once and every call's result once
        RecordedRequest last = requests.stream().filter(r -> "final".equals(r.rule())).findFirst().orElseThrow();
        List<JsonNode> messages = StreamSupport.stream(last.body().path("messages").spliterator(), false).toList();
        for (String text : promptIds.size() == 1 ? List.of(PROMPT) : List.of(PROMPT, SECOND_PROMPT)) {
            assertThat(messages.stream().filter(m -> m.path("role").asText().equals("user") && m.path("content").asText().equals(text)))
                    .as("user messages \"%s\" in the last request", text).hasSize(1);
        }
        List<String> results = messages.stream().filter(m -> m.path("role").asText().equals("tool"))
                .map(m -> m.path("tool_call_id").asText()).toList();
        assertThat(results).doesNotHaveDuplicates().containsAll(started);

        // no turn on two hosts: B resumed and ended it, A stopped it and has written nothing about the team since
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(log(b)).anyMatch(l -> l.contains("team=" + team + " agent=lead turn=" + turnId + " ended: COMPLETED")));
        List<String> aNow = linesAbout(a, team);
        assertThat(aNow).noneMatch(l -> l.contains("turn=" + turnId + " ended"));
        assertThat(aNow).as("A's log lines about team %s after the hand-over", team).isEqualTo(aAtGate);
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT owner, status, turn_id FROM lead.agents WHERE team = ? AND name = 'lead'")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("the lead's owner").startsWith(b.pid() + "@");
                assertThat(rs.getString(2)).isEqualTo("idle");
                assertThat(rs.getString(3)).isNull();
            }
        }
    }

    // ---- helpers

    /** A team whose partition of {@code cohort.prompts} is one of {@code partitions} (Kafka's default partitioner). */
    private static String teamOn(Set<Integer> partitions, String prefix) {
        return IntStream.range(0, 1000).mapToObj(i -> prefix + i).filter(t -> partitions.contains(partitionOf(t)))
                .findFirst().orElseThrow();
    }

    private static int partitionOf(String team) {
        return Utils.toPositive(Utils.murmur2(team.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    private static Set<Integer> partitionsOf(Map<String, Set<Integer>> assignment, String clientId) {
        return assignment.entrySet().stream().filter(e -> e.getKey().startsWith(clientId)).map(Map.Entry::getValue)
                .findFirst().orElseThrow(() -> new AssertionError("no member " + clientId + " in " + assignment));
    }

    /** Waits until the group is stable with two members, each with partitions of {@code cohort.prompts}: client id → them. */
    private Map<String, Set<Integer>> awaitTwoMembers() {
        try (Admin admin = Admin.create(stack.devstack().kafkaClientProperties())) {
            return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
                ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
                if (g.state() != ConsumerGroupState.STABLE || g.members().size() != 2) {
                    return null;
                }
                Map<String, Set<Integer>> byClient = g.members().stream().collect(Collectors.toMap(MemberDescription::clientId,
                        m -> m.assignment().topicPartitions().stream().filter(p -> p.topic().equals(Topics.PROMPTS))
                                .map(TopicPartition::partition).collect(Collectors.toSet())));
                return byClient.values().stream().anyMatch(Set::isEmpty) ? null : byClient;
            }, m -> m != null);
        }
    }

    private static String turnIdOf(EventStream sse, String promptId) {
        return sse.ofPrompt(promptId).stream().filter(e -> e.type().equals("turn_started")).findFirst()
                .map(e -> e.event().path("data").path("turnId").asText()).orElseThrow();
    }

    private static List<String> finishedPreviews(List<EventStream.Received> events) {
        return events.stream().filter(e -> e.type().equals("tool_call_finished"))
                .map(e -> e.event().path("data").path("preview").asText().strip()).toList();
    }

    private static List<String> callIds(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.path("type").asText().equals(type)).map(e -> e.path("data").path("callId").asText())
                .toList();
    }

    /** The scripted model's requests of the team's lead in its turns (memory extraction quotes them in one message). */
    private List<RecordedRequest> requestsOf(String team) {
        return stack.model().requests().stream().filter(r -> (team + "/lead").equals(r.agent()))
                .filter(r -> StreamSupport.stream(r.body().path("messages").spliterator(), false)
                        .anyMatch(m -> m.path("role").asText().equals("user") && m.path("content").asText().equals(PROMPT)))
                .toList();
    }

    private String promptVia(ServiceProcess replica, String team, String text) {
        HttpResponse<String> r = stack.send(HttpRequest.newBuilder(URI.create(replica.url() + "/api/v1/teams/" + team + "/prompts"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("text", text)))).build());
        assertThat(r.statusCode()).as("prompt via %s: %s", replica.url(), r.body()).isEqualTo(202);
        return LeadStack.json(r.body()).get("id").asText();
    }

    private String promptStatus(String team, String id) throws Exception {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT status FROM lead.prompts WHERE team = ? AND id = ?")) {
            ps.setString(1, team);
            ps.setString(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The lead's calls in the tool runner's record, without the engine's housekeeping calls: [call id, status]. */
    private List<List<String>> toolCalls(String team) throws Exception {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT call_id, status FROM toolrunner.tool_calls WHERE team = ? AND agent = 'lead' ORDER BY started_at, call_id")) {
            ps.setString(1, team);
            List<List<String>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String id = rs.getString(1);
                    if (!id.startsWith("skills-") && !id.startsWith("hook-settings-")) {
                        rows.add(List.of(id, rs.getString(2)));
                    }
                }
            }
            return rows;
        }
    }

    /** A non-default team's workspace: {@code teams/<team>} under the tool runner's root. */
    private Path workspaceOf(String team) {
        return stack.workspace().resolve("teams").resolve(team);
    }

    private static List<String> log(ServiceProcess p) {
        try {
            return Files.readAllLines(p.log());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> linesAbout(ServiceProcess p, String team) {
        return log(p).stream().filter(l -> l.contains("team=" + team + " ")).toList();
    }

    private void dumpLogs(String phase) {
        System.out.println("[LeadRebalanceIT] " + phase + ": service logs (tails):\n" + stack.logs());
        for (ServiceProcess p : new HashSet<>(Arrays.asList(a, b))) {
            if (p != null) {
                System.out.println("[LeadRebalanceIT] lead pid " + p.pid() + ", lines about teams:\n"
                        + String.join("\n", log(p).stream().filter(l -> l.contains("team=") || l.contains("partitions")).toList()));
            }
        }
    }
}

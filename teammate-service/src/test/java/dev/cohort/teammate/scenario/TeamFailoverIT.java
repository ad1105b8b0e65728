package dev.cohort.teammate.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.Scenario;
import dev.cohort.devstack.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Three teammate-service replicas host 50 teammates of one team; one replica is SIGKILLed
 * while every teammate is in the middle of its work (its one tool call waits for a gate file) → its teammates are
 * adopted by the other two, their turns resume from the last saved step, and all 50 finish and report to the lead,
 * each tool call having run once (every teammate's command appends its name to {@code ran.log} once).
 *
 * <p>Nothing waits on a clock: the gate opens only after every teammate of the killed replica is owned by a live one.
 * The time from the kill to the last adoption is printed (the failover figure in docs/benchmarks/team-messages.md).
 */
class TeamFailoverIT {

    private static final Duration PATIENCE = Duration.ofMinutes(6);
    private static final int TEAMMATES = 50;
    private static final String TEAM = "fleet";

    private static String name(int i) {
        return String.format("w%02d", i);
    }

    private static String rules() {
        List<String> rules = new ArrayList<>();
        rules.add("""
                {"name":"memory-housekeeping","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}}""");
        String spawns = IntStream.rangeClosed(1, TEAMMATES).mapToObj(i -> "{\"name\":\"spawn_teammate\",\"arguments\":"
                + "{\"name\":\"" + name(i) + "\",\"role\":\"worker\",\"prompt\":\"job: append your name to ran.log\"}}")
                .collect(Collectors.joining(","));
        rules.add("{\"name\":\"fleet-lead-spawn\",\"match\":{\"agent\":\"fleet/lead\",\"lastRole\":\"user\","
                + "\"lastMessage\":\"spawn the fleet\"},\"reply\":{\"toolCalls\":[" + spawns + "]}}");
        rules.add("""
                {"name":"fleet-lead-spawned","match":{"agent":"fleet/lead","lastRole":"tool"},"reply":{"text":"fleet spawned"}}""");
        rules.add("""
                {"name":"fleet-lead-inbox","match":{"agent":"fleet/lead"},"reply":{"text":"noted"}}""");
        for (int i = 1; i <= TEAMMATES; i++) {
            String n = name(i);
            rules.add("{\"name\":\"fleet-" + n + "-work\",\"match\":{\"agent\":\"fleet/" + n + "\",\"lastRole\":\"user\","
                    + "\"lastMessage\":\"job: append your name\"},\"reply\":{\"toolCalls\":[{\"name\":\"bash\",\"arguments\":"
                    + "{\"command\":\"echo " + n + " >> ran.log; while [ ! -f gate ]; do sleep 0.2; done; echo " + n
                    + "-through\"}}]}}");
            rules.add("{\"name\":\"fleet-" + n + "-done\",\"match\":{\"agent\":\"fleet/" + n + "\",\"lastRole\":\"tool\","
                    + "\"lastMessage\":\"" + n + "-through\"},\"reply\":{\"text\":\"" + n + " finished\"}}");
        }
        return "{\"rules\":[" + String.join(",", rules) + "]}";
    }

    @Test
    void fiftyTeammatesOnThreeReplicasAllFinishAfterOneReplicaIsKilledAndEachToolCallRanOnce() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("COHORT_TEAMMATE_MAX_PER_TEAM", "60");
        env.put("COHORT_TEAMMATE_MAX_LIVE_PER_TEAM", "60");
        env.put("COHORT_TOOL_RUNNER_BASH_DEFAULT_TIMEOUT", "600s");
        try (TeamStack stack = TeamStack.start(3, env)) {
            try {
                run(stack);
            } catch (Throwable t) {
                System.out.println(stack.logs());
                throw t;
            }
        }
    }

    private void run(TeamStack stack) throws Exception {
        stack.createTeam(TEAM);
        stack.model().load(Scenario.parse(rules()));
        stack.prompt(TEAM, "spawn the fleet");
        Path ran = stack.workspaceOf(TEAM).resolve("ran.log");

        // every teammate is inside its tool call, waiting at the gate
        await("all 50 in their tool call").atMost(PATIENCE).pollInterval(Duration.ofMillis(500))
                .until(() -> Files.exists(ran) && lines(ran).stream().distinct().count() == TEAMMATES);
        Map<String, List<String>> owners = owners(stack);
        ServiceProcess victim = stack.teammates().get(1);
        String victimId = "teammate-2";
        List<String> moved = owners.getOrDefault(victimId, List.of());
        assertThat(moved).as("teammates owned by %s in %s", victimId, owners).isNotEmpty();

        long killedAt = System.nanoTime();
        stack.kill(victim);
        await("the killed replica's teammates adopted by the others").atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    Map<String, List<String>> now = owners(stack);
                    return !now.containsKey(victimId) && now.values().stream().mapToInt(List::size).sum() == TEAMMATES;
                });
        System.out.printf("[TeamFailoverIT] %d teammates of the killed replica adopted %.1f s after SIGKILL%n",
                moved.size(), (System.nanoTime() - killedAt) / 1e9);

        Files.writeString(stack.workspaceOf(TEAM).resolve("gate"), "open\n");
        await("50 results at the lead").atMost(PATIENCE).pollInterval(Duration.ofMillis(500))
                .until(() -> results(stack) == TEAMMATES);

        // each tool call ran once: one line per teammate, none twice
        assertThat(lines(ran)).hasSize(TEAMMATES).doesNotHaveDuplicates();
        // one result per teammate (a re-sent one has the same id and is kept once)
        assertThat(resultsPerSender(stack)).hasSize(TEAMMATES).allSatisfy((n, count) -> assertThat(count).as(n).isEqualTo(1));
        // the roster hears where the moved teammates work now: `working` from a surviving replica (the phases travel on
        // cohort.events, the results on the lead's inbox: the lead can have the results before the log has the phases)
        await("the moved teammates' phases in the log").atMost(PATIENCE).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            List<JsonNode> events = stack.events(TEAM);
            for (String n : moved) {
                assertThat(events).as("phases of %s after the move", n).anyMatch(e -> e.path("type").asText().equals("teammate_phase")
                        && e.path("agent").asText().equals(n) && e.path("data").path("phase").asText().equals("working")
                        && List.of("teammate-1", "teammate-3").contains(e.path("data").path("replica").asText()));
            }
        });
        // and each scripted step was asked for once per teammate (the resumed turns did not repeat the call)
        for (int i = 1; i <= TEAMMATES; i++) {
            String n = name(i);
            assertThat(stack.model().requests().stream().filter(r -> ("fleet-" + n + "-work").equals(r.rule())))
                    .as("work requests of %s", n).hasSize(1);
        }
    }

    private static List<String> lines(Path p) throws IOException {
        return Files.readAllLines(p).stream().filter(l -> !l.isBlank()).toList();
    }

    /** Replica id → the fleet's teammates it owns, from {@code teammate.agents}. */
    private static Map<String, List<String>> owners(TeamStack stack) throws Exception {
        Map<String, List<String>> m = new HashMap<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT owner, name FROM teammate.agents WHERE team = ? AND owner IS NOT NULL")) {
            ps.setString(1, TEAM);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    m.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        return m;
    }

    /** Teammate → result messages stored in the lead's inbox. */
    private static Map<String, Integer> resultsPerSender(TeamStack stack) throws Exception {
        Map<String, Integer> m = new HashMap<>();
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT sender, count(*) FROM lead.inbox WHERE team = ? AND type = 'result' GROUP BY sender")) {
            ps.setString(1, TEAM);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    m.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return m;
    }

    /** Distinct teammates whose completed result reached the lead's inbox. */
    private static int results(TeamStack stack) throws Exception {
        try (Connection c = stack.db(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(DISTINCT sender) FROM lead.inbox WHERE team = ? AND type = 'result'"
                        + " AND content LIKE '% finished'")) {
            ps.setString(1, TEAM);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}

package dev.cohort.teammate.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.ServiceProcess;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A teammate SIGKILLed while holding a task, made deterministic. One teammate-service replica hosts
 * x (inside the task's tool call, holding its lease) and y (idle). The replica is SIGKILLed: nobody renews x's lease,
 * and the board (lead API) shows the task pending again once it lapsed. A new replica adopts both: y, idle, claims
 * the task (pushed task_available and claim-next) and completes it; x's resumed turn then tries to complete it with
 * its old lease and is refused, the model told why.
 */
class ClaimFailoverIT {

    private static final Duration PATIENCE = Duration.ofMinutes(4);
    private static final String TEAM = "crash";

    private static String rules() {
        return """
                {"rules":[
                {"name":"memory-housekeeping","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}},
                {"name":"crash-lead-x","match":{"agent":"crash/lead","lastRole":"user","lastMessage":"spawn x"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"x","role":"worker","prompt":"wait for tasks"}}]}},
                {"name":"crash-lead-y","match":{"agent":"crash/lead","lastRole":"user","lastMessage":"spawn y"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"y","role":"worker","prompt":"wait for tasks"}}]}},
                {"name":"crash-lead-tool","match":{"agent":"crash/lead","lastRole":"tool"},"reply":{"text":"spawned"}},
                {"name":"crash-lead-inbox","match":{"agent":"crash/lead"},"reply":{"text":"noted"}},
                {"name":"crash-x-work","match":{"agent":"crash/x","lastRole":"user","lastMessage":"^<auto-claimed>task_\\\\d+: long job"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch x-started; while [ ! -f gate ]; do sleep 0.2; done; echo long-through"}}]}},
                {"name":"crash-x-complete","match":{"agent":"crash/x","lastRole":"tool","lastMessage":"long-through"},
                 "reply":{"toolCalls":[{"name":"complete_task","arguments":{"task_id":"%s","result":"x finished"}}]}},
                {"name":"crash-x-refused","match":{"agent":"crash/x","lastRole":"tool","lastMessage":"complete_task refused"},
                 "reply":{"text":"my claim was lost; stopping"}},
                {"name":"crash-y-work","match":{"agent":"crash/y","lastRole":"user","lastMessage":"^<auto-claimed>task_\\\\d+: long job"},
                 "reply":{"toolCalls":[{"name":"complete_task","arguments":{"result":"y finished"}}]}},
                {"name":"crash-done","match":{"agentRegex":"^crash/[xy]$","lastRole":"tool"},"reply":{"text":"done"}},
                {"name":"crash-wait","match":{"agentRegex":"^crash/[xy]$","lastRole":"user"},"reply":{"text":"waiting"}}
                ]}""";
    }

    @Test
    void aTaskHeldByAKilledTeammateReturnsToPendingAndAnotherTeammateFinishesItWhileTheStaleHolderIsRefused()
            throws Exception {
        Map<String, String> env = Map.of(
                // a short lease so the test sees it lapse; heartbeats every second keep it alive while the host lives
                "COHORT_AUTOCLAIM_LEASE", "8s", "COHORT_AUTOCLAIM_HEARTBEAT_INTERVAL", "1s",
                "COHORT_AUTOCLAIM_FALLBACK_POLL", "5s",
                "COHORT_TOOL_RUNNER_BASH_DEFAULT_TIMEOUT", "600s");
        try (TeamStack stack = TeamStack.start(1, env)) {
            try {
                run(stack);
            } catch (Throwable t) {
                System.out.println(stack.logs());
                throw t;
            }
        }
    }

    private void run(TeamStack stack) throws Exception {
        ClaimRig rig = new ClaimRig(stack);
        stack.createTeam(TEAM);
        String task = rig.nextTaskId(0);
        stack.model().load(Scenario.parse(rules().formatted(task)));
        stack.prompt(TEAM, "spawn x");
        awaitIdle(rig, "x");
        // x's first result reaches the lead as an inbox turn: read before "spawn y" is sent, or the two may share one
        // turn whose last message is the inbox text (and the lead would answer "noted" instead of spawning y)
        await("the lead read x's first result").atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> stack.model().requests().stream().anyMatch(r -> "crash-lead-inbox".equals(r.rule())));

        // x is the only teammate: it claims the task and is inside its tool call, holding the lease
        assertThat(rig.create(TEAM, "long job", "run the long job", List.of())).isEqualTo(task);
        Path ws = stack.workspaceOf(TEAM);
        await("x inside the task's tool call").atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> Files.exists(ws.resolve("x-started")));
        assertThat(rig.task(TEAM, task).path("owner").asText()).isEqualTo("x");
        await("the roster shows x's current task").atMost(PATIENCE).until(() -> task.equals(rig.currentTasks(TEAM).get("x")));

        stack.prompt(TEAM, "spawn y");
        awaitIdle(rig, "y");
        // the lease is renewed while x's host lives: still held by x after more than a lease's length of heartbeats
        String leaseBefore = rig.task(TEAM, task).path("leaseUntil").asText();
        await("a heartbeat renewed x's lease").atMost(PATIENCE).until(() -> !leaseBefore.equals(rig.task(TEAM, task)
                .path("leaseUntil").asText()));
        assertThat(rig.task(TEAM, task).path("owner").asText()).isEqualTo("x");

        ServiceProcess replica = stack.teammates().get(0);
        stack.kill(replica);
        // nobody renews it: the board shows the task pending again, claimed once so far
        JsonNode pending = await("the lease lapsed").atMost(PATIENCE).pollInterval(Duration.ofMillis(500))
                .until(() -> rig.task(TEAM, task), t -> t.path("status").asText().equals("pending"));
        assertThat(pending.path("claims").asInt()).isEqualTo(1);
        assertThat(pending.has("owner")).isFalse();

        stack.startTeammate("teammate-2");
        // y (idle) claims and completes it; x is still inside its resumed tool call
        JsonNode done = await("y completed the task").atMost(PATIENCE).pollInterval(Duration.ofMillis(300))
                .until(() -> rig.task(TEAM, task), t -> t.path("status").asText().equals("completed"));
        assertThat(done.path("owner").asText()).isEqualTo("y");
        assertThat(done.path("claims").asInt()).isEqualTo(2);
        assertThat(done.path("result").asText()).isEqualTo("y finished");

        // x's resumed work ends with complete_task under its old lease: refused, and the model is told
        Files.writeString(ws.resolve("gate"), "open\n");
        RecordedRequest told = await("x told its claim is lost").atMost(PATIENCE).pollInterval(Duration.ofMillis(300))
                .until(() -> stack.model().requests().stream().filter(r -> "crash-x-refused".equals(r.rule())).findFirst()
                        .orElse(null), r -> r != null);
        assertThat(TeamScenariosIT.lastMessage(told)).contains("complete_task refused")
                .contains(task + " (long job) is already completed by y");
        JsonNode after = rig.task(TEAM, task);
        assertThat(after.path("owner").asText()).isEqualTo("y");
        assertThat(after.path("result").asText()).isEqualTo("y finished");
        // the x tool call ran once (resumed, not repeated)
        assertThat(stack.model().requests().stream().filter(r -> "crash-x-work".equals(r.rule()))).hasSize(1);
    }

    private static void awaitIdle(ClaimRig rig, String name) {
        await(name + " idle").atMost(PATIENCE).pollInterval(Duration.ofMillis(300))
                .until(() -> rig.roster(TEAM).containsKey(name)
                        && rig.roster(TEAM).get(name).path("status").asText().equals("idle"));
    }
}

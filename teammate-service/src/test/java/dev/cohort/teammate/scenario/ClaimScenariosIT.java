package dev.cohort.teammate.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Autonomous claiming, end to end with real processes (tool runner, lead-service, two teammate-service replicas), the
 * scripted model, a real broker and PostgreSQL: the seed's autonomous-agent "try these prompts" (alice claims
 * schema.sql, then seed.sql once it is unblocked, without a message from the lead; bob and carol share three
 * independent tasks), the worktree one (two tasks bound to worktrees, each teammate works in its task's worktree,
 * removal refuses the unmerged work and a discard waits for a person), and 20 idle teammates × 200 tasks with
 * dependencies, checked from the board and the event log. Each scenario has its own team.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClaimScenariosIT {

    private static final Duration PATIENCE = Duration.ofMinutes(5);

    private TeamStack stack;
    private ClaimRig rig;

    @BeforeAll
    void start() {
        stack = TeamStack.start(2, Map.of("COHORT_TEAMMATE_MAX_PER_TEAM", "30", "COHORT_TEAMMATE_MAX_LIVE_PER_TEAM", "30",
                // a wake-up the roster's lag misses costs this much instead of 30 s (the push is what the tests check)
                "COHORT_AUTOCLAIM_FALLBACK_POLL", "5s"));
        rig = new ClaimRig(stack);
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    private void load(String rules) {
        stack.appendRules(rules);
    }

    // ---- autonomous-agent "try these prompts" 1: alice waits for tasks and claims them in dependency order

    @Test
    void aliceClaimsTheSchemaTaskThenTheSeedTaskOnceItIsUnblockedWithoutAMessageFromTheLead() throws Exception {
        String team = stack.createTeam("s17a");
        String t1 = rig.nextTaskId(0);
        load("""
                {"name":"s17a-lead","match":{"agent":"s17a/lead","lastRole":"user","lastMessage":"Create two tasks"},
                 "reply":{"toolCalls":[
                   {"name":"create_task","arguments":{"subject":"write schema.sql","description":"a users table"}},
                   {"name":"create_task","arguments":{"subject":"write seed.sql","description":"seed the users table","blockedBy":["%s"]}},
                   {"name":"spawn_teammate","arguments":{"name":"alice","role":"backend developer","prompt":"wait for tasks"}}]}},
                {"name":"s17a-lead-tool","match":{"agent":"s17a/lead","lastRole":"tool"},"reply":{"text":"tasks created, alice spawned"}},
                {"name":"s17a-lead-inbox","match":{"agent":"s17a/lead"},"reply":{"text":"noted"}},
                {"name":"s17a-alice-schema","match":{"agent":"s17a/alice","lastRole":"user","lastMessage":"^<auto-claimed>task_\\\\d+: write schema\\\\.sql</auto-claimed>"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"schema.sql","content":"CREATE TABLE users (id INT PRIMARY KEY);\\n"}},
                                       {"name":"complete_task","arguments":{"result":"schema.sql written"}}]}},
                {"name":"s17a-alice-seed","match":{"agent":"s17a/alice","lastRole":"user","lastMessage":"^<auto-claimed>task_\\\\d+: write seed\\\\.sql</auto-claimed>"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"seed.sql","content":"INSERT INTO users VALUES (1);\\n"}},
                                       {"name":"complete_task","arguments":{"result":"seed.sql written"}}]}},
                {"name":"s17a-alice-done","match":{"agent":"s17a/alice","lastRole":"tool"},"reply":{"text":"done"}},
                {"name":"s17a-alice-wait","match":{"agent":"s17a/alice","lastRole":"user"},"reply":{"text":"waiting for tasks"}}
                """.formatted(t1));
        try {
            stack.prompt(team, "Create two tasks: write schema.sql, then seed.sql which depends on it. Spawn alice; just say wait for tasks.");
            await("both tasks completed").atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).until(() -> {
                List<JsonNode> b = rig.board(team);
                return b.size() == 2 && b.stream().allMatch(t -> t.path("status").asText().equals("completed"));
            });
            List<JsonNode> board = rig.board(team);
            assertThat(board).extracting(t -> t.path("subject").asText() + ":" + t.path("owner").asText() + ":"
                    + t.path("claims").asInt()).containsExactly("write schema.sql:alice:1", "write seed.sql:alice:1");
            String t2 = board.get(1).path("id").asText();
            assertThat(Files.readString(stack.workspaceOf(team).resolve("seed.sql"))).isEqualTo("INSERT INTO users VALUES (1);\n");

            // seed.sql was claimed only after schema.sql was completed (event order), both by claim-next. The lead
            // stores a task_completed just after the completion's commit, which the board can show first: awaited
            List<JsonNode> ev = await("seed.sql's task_completed in the log").atMost(PATIENCE).pollInterval(Duration.ofMillis(300))
                    .until(() -> rig.events(team, "task_claimed", "task_completed"), l -> l.stream().anyMatch(e ->
                            e.path("type").asText().equals("task_completed") && e.path("data").path("id").asText().equals(t2)));
            assertThat(ev).extracting(e -> e.path("type").asText() + ":" + e.path("data").path("id").asText())
                    .containsExactly("task_claimed:" + t1, "task_completed:" + t1, "task_claimed:" + t2,
                            "task_completed:" + t2);
            assertThat(ev).filteredOn(e -> e.path("type").asText().equals("task_claimed"))
                    .extracting(e -> e.path("data").path("via").asText()).containsOnly("claim-next");
            // the lead never messaged alice: her only inputs were the spawn and the two auto-claims
            assertThat(stack.events(team)).noneMatch(e -> e.path("type").asText().equals("message_sent")
                    && e.path("agent").asText().equals("lead"));
            // the auto-claimed input: the marker, then the description as quoted data naming its creator
            RecordedRequest claimed = stack.model().requests().stream().filter(r -> "s17a-alice-schema".equals(r.rule()))
                    .findFirst().orElseThrow();
            assertThat(TeamScenariosIT.lastMessage(claimed)).isEqualTo("<auto-claimed>" + t1
                    + ": write schema.sql</auto-claimed>\n<message from=\"lead\" type=\"task\" id=\"" + t1
                    + "\">\na users table\n</message>\nYou hold this task; when it is done, call complete_task with task_id \""
                    + t1 + "\".");
            assertThat(stack.model().requests().stream().filter(r -> "s17a-alice-schema".equals(r.rule()))).hasSize(1);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- autonomous-agent "try these prompts" 2: bob and carol share three independent tasks

    @Test
    void bobAndCarolClaimThreeIndependentTasksEachExactlyOnce() {
        String team = stack.createTeam("s17b");
        load("""
                {"name":"s17b-lead-spawn","match":{"agent":"s17b/lead","lastRole":"user","lastMessage":"spawn bob and carol"},
                 "reply":{"toolCalls":[
                   {"name":"spawn_teammate","arguments":{"name":"bob","role":"developer","prompt":"wait for tasks"}},
                   {"name":"spawn_teammate","arguments":{"name":"carol","role":"developer","prompt":"wait for tasks"}}]}},
                {"name":"s17b-lead-tasks","times":1,"match":{"agent":"s17b/lead","lastRole":"user","anyMessage":"create three small tasks"},
                 "reply":{"toolCalls":[
                   {"name":"create_task","arguments":{"subject":"echo one"}},
                   {"name":"create_task","arguments":{"subject":"echo two"}},
                   {"name":"create_task","arguments":{"subject":"echo three"}}]}},
                {"name":"s17b-lead-tool","match":{"agent":"s17b/lead","lastRole":"tool"},"reply":{"text":"ok"}},
                {"name":"s17b-lead-inbox","match":{"agent":"s17b/lead"},"reply":{"text":"noted"}},
                {"name":"s17b-work","match":{"agentRegex":"^s17b/(bob|carol)$","lastRole":"user","lastMessage":"^<auto-claimed>"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo worked"}},{"name":"complete_task","arguments":{}}]}},
                {"name":"s17b-done","match":{"agentRegex":"^s17b/(bob|carol)$","lastRole":"tool"},"reply":{"text":"done"}},
                {"name":"s17b-wait","match":{"agentRegex":"^s17b/(bob|carol)$","lastRole":"user"},"reply":{"text":"waiting"}}
                """);
        try {
            stack.prompt(team, "spawn bob and carol");
            await("bob and carol idle").atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).until(() -> {
                Map<String, JsonNode> r = rig.roster(team);
                return r.size() == 2 && r.values().stream().allMatch(a -> a.path("status").asText().equals("idle"));
            });
            // bob's and carol's results may reach the lead after the roster shows them idle, and be injected after
            // the prompt in the same turn: the rule looks for the prompt anywhere in the conversation, once
            stack.prompt(team, "create three small tasks");
            await("three tasks completed").atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).until(() -> {
                List<JsonNode> b = rig.board(team);
                return b.size() == 3 && b.stream().allMatch(t -> t.path("status").asText().equals("completed"));
            });
            List<JsonNode> board = rig.board(team);
            assertThat(board).allSatisfy(t -> {
                assertThat(t.path("claims").asInt()).isEqualTo(1);
                assertThat(t.path("owner").asText()).isIn("bob", "carol");
            });
            assertThat(rig.events(team, "task_claimed")).hasSize(3);
            System.out.println("[ClaimScenariosIT] s17 prompt 2 owners: " + board.stream()
                    .map(t -> t.path("subject").asText() + "→" + t.path("owner").asText()).toList());
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- worktree "try these prompts": a worktree per task

    @Test
    void aliceAndBobEachWorkInTheirTasksWorktreeAndItsUnmergedWorkIsNotRemovedWithoutAnApprovedDiscard() throws Exception {
        String team = stack.createTeam("s18");
        String t1 = rig.nextTaskId(0);
        String t2 = rig.nextTaskId(1);
        load("""
                {"name":"s18-lead","match":{"agent":"s18/lead","lastRole":"user","lastMessage":"Create two tasks"},
                 "reply":{"toolCalls":[
                   {"name":"create_task","arguments":{"subject":"add a poem to README.md"}},
                   {"name":"create_task","arguments":{"subject":"add a maths problem to README.md"}},
                   {"name":"create_worktree","arguments":{"name":"poem","task_id":"%s"}},
                   {"name":"create_worktree","arguments":{"name":"math","task_id":"%s"}},
                   {"name":"spawn_teammate","arguments":{"name":"alice","role":"writer","prompt":"wait for tasks"}},
                   {"name":"spawn_teammate","arguments":{"name":"bob","role":"writer","prompt":"wait for tasks"}}]}},
                {"name":"s18-lead-remove","match":{"agent":"s18/lead","lastRole":"user","lastMessage":"remove the poem worktree"},
                 "reply":{"toolCalls":[{"name":"remove_worktree","arguments":{"name":"poem"}}]}},
                {"name":"s18-lead-discard","match":{"agent":"s18/lead","lastRole":"user","lastMessage":"discard the poem worktree"},
                 "reply":{"toolCalls":[{"name":"remove_worktree","arguments":{"name":"poem","discard_changes":true}}]}},
                {"name":"s18-lead-tool","match":{"agent":"s18/lead","lastRole":"tool"},"reply":{"text":"done"}},
                {"name":"s18-lead-inbox","match":{"agent":"s18/lead"},"reply":{"text":"noted"}},
                {"name":"s18-poem","match":{"agentRegex":"^s18/(alice|bob)$","lastRole":"user","lastMessage":"^<auto-claimed>task_\\\\d+: add a poem"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"README.md","content":"Roses are red\\n"}},
                                       {"name":"bash","arguments":{"command":"git branch --show-current; pwd"}},
                                       {"name":"complete_task","arguments":{"result":"poem added"}}]}},
                {"name":"s18-math","match":{"agentRegex":"^s18/(alice|bob)$","lastRole":"user","lastMessage":"^<auto-claimed>task_\\\\d+: add a maths"},
                 "reply":{"toolCalls":[{"name":"write_file","arguments":{"path":"README.md","content":"2 + 3 = ?\\n"}},
                                       {"name":"bash","arguments":{"command":"git branch --show-current; pwd"}},
                                       {"name":"complete_task","arguments":{"result":"problem added"}}]}},
                {"name":"s18-done","match":{"agentRegex":"^s18/(alice|bob)$","lastRole":"tool"},"reply":{"text":"done"}},
                {"name":"s18-wait","match":{"agentRegex":"^s18/(alice|bob)$","lastRole":"user"},"reply":{"text":"waiting"}}
                """.formatted(t1, t2));
        try {
            stack.prompt(team, "Create two tasks, a poem and a maths problem in README.md, a worktree for each bound by task_id; start alice and bob.");
            await("both tasks completed").atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).until(() -> {
                List<JsonNode> b = rig.board(team);
                return b.size() == 2 && b.stream().allMatch(t -> t.path("status").asText().equals("completed"));
            });
            List<JsonNode> board = rig.board(team);
            assertThat(board).extracting(t -> t.path("id").asText() + ":" + t.path("worktree").asText())
                    .containsExactly(t1 + ":poem", t2 + ":math");
            // each edited README.md in its own worktree; the team's workspace is untouched
            assertThat(Files.readString(rig.worktree(team, "poem").resolve("README.md"))).isEqualTo("Roses are red\n");
            assertThat(Files.readString(rig.worktree(team, "math").resolve("README.md"))).isEqualTo("2 + 3 = ?\n");
            assertThat(Files.exists(stack.workspaceOf(team).resolve("README.md"))).isFalse();
            // their bash ran in the worktree, on its branch; the auto-claimed input named the worktree
            // (the request after the tool results may come a little after the board shows the task completed)
            RecordedRequest afterPoem = await("the request after the poem's tool calls").atMost(PATIENCE)
                    .until(() -> stack.model().requests().stream().filter(r -> "s18-done".equals(r.rule())
                            && r.body().toString().contains("Roses are red")).findFirst(), Optional::isPresent)
                    .orElseThrow();
            assertThat(afterPoem.body().path("messages").toString()).contains("wt/poem")
                    .contains("bound to worktree 'poem' (wt:poem)");
            // completion cleared the binding: the roster shows no current task
            await().atMost(PATIENCE).until(() -> rig.currentTasks(team).values().stream().allMatch(v -> v == null));

            // the poem's work is uncommitted: removal is refused, naming it
            stack.prompt(team, "remove the poem worktree");
            RecordedRequest refused = await("the refusal").atMost(PATIENCE).until(() -> stack.model().requests().stream()
                    .filter(r -> "s18-lead-tool".equals(r.rule()) && TeamScenariosIT.lastMessage(r).contains("poem")
                            && TeamScenariosIT.lastMessage(r).contains("uncommitted")).findFirst().orElse(null),
                    r -> r != null);
            assertThat(TeamScenariosIT.lastMessage(refused)).contains("discard_changes=true");
            assertThat(Files.isDirectory(rig.worktree(team, "poem"))).isTrue();

            // a discard is destructive: it waits for a person's approval; denied, the worktree stays
            stack.prompt(team, "discard the poem worktree");
            JsonNode pending = await("the discard's approval").atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).until(
                    () -> TeamStack.json(stack.get("/api/v1/teams/" + team + "/approvals?status=pending").body()),
                    a -> a.isArray() && a.size() == 1);
            assertThat(pending.get(0).path("tool").asText()).isEqualTo("remove_worktree");
            assertThat(stack.post("/api/v1/teams/" + team + "/approvals/" + pending.get(0).path("id").asText(),
                    Map.of("approve", false, "reason", "keep it for review")).statusCode()).isEqualTo(200);
            await("the denial reaches the lead").atMost(PATIENCE).until(() -> stack.model().requests().stream()
                    .anyMatch(r -> "s18-lead-tool".equals(r.rule()) && TeamScenariosIT.lastMessage(r).contains("keep it for review")));
            assertThat(Files.readString(rig.worktree(team, "poem").resolve("README.md"))).isEqualTo("Roses are red\n");
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    // ---- 20 idle teammates × 200 tasks with dependencies

    static final int HERD = 20;
    static final int TASKS = 200;

    @Test
    void twentyIdleTeammatesClaimEachOfTwoHundredDependentTasksExactlyOnceAndNeverBeforeItsBlockers() {
        String team = stack.createTeam("herd");
        String spawns = IntStream.rangeClosed(1, HERD).mapToObj(i -> "{\"name\":\"spawn_teammate\",\"arguments\":{\"name\":\""
                + "w%02d".formatted(i) + "\",\"role\":\"worker\",\"prompt\":\"wait for tasks\"}}").collect(Collectors.joining(","));
        load("""
                {"name":"herd-lead-spawn","match":{"agent":"herd/lead","lastRole":"user","lastMessage":"spawn the herd"},
                 "reply":{"toolCalls":[%s]}},
                {"name":"herd-lead-tool","match":{"agent":"herd/lead","lastRole":"tool"},"reply":{"text":"spawned"}},
                {"name":"herd-lead-inbox","match":{"agent":"herd/lead"},"reply":{"text":"noted"}},
                {"name":"herd-work","match":{"agentRegex":"^herd/w\\\\d+$","lastRole":"user","lastMessage":"^<auto-claimed>"},
                 "reply":{"toolCalls":[{"name":"complete_task","arguments":{"result":"done"}}]}},
                {"name":"herd-done","match":{"agentRegex":"^herd/w\\\\d+$","lastRole":"tool"},"reply":{"text":"done"}},
                {"name":"herd-wait","match":{"agentRegex":"^herd/w\\\\d+$","lastRole":"user"},"reply":{"text":"waiting"}}
                """.formatted(spawns));
        try {
            stack.prompt(team, "spawn the herd");
            await("20 idle teammates").atMost(PATIENCE).pollInterval(Duration.ofMillis(500)).until(() -> {
                Map<String, JsonNode> r = rig.roster(team);
                return r.size() == HERD && r.values().stream().allMatch(a -> a.path("status").asText().equals("idle"));
            });
            // 200 tasks in layers of 20: each task after the first layer waits for one or two of the layer before
            long started = System.nanoTime();
            List<String> ids = new ArrayList<>();
            Map<String, List<String>> deps = new HashMap<>();
            for (int i = 0; i < TASKS; i++) {
                List<String> blockers = new ArrayList<>();
                if (i >= HERD) {
                    blockers.add(ids.get(i - HERD));
                    String other = ids.get(i - HERD - (i % HERD) + ((i * 7) % HERD));
                    if (!blockers.contains(other)) {
                        blockers.add(other);
                    }
                }
                String id = rig.create(team, "job %03d".formatted(i), "do job " + i, blockers);
                ids.add(id);
                deps.put(id, blockers);
            }
            await("all 200 completed").atMost(PATIENCE).pollInterval(Duration.ofSeconds(1)).until(() ->
                    rig.board(team).stream().filter(t -> t.path("status").asText().equals("completed")).count() == TASKS);
            System.out.printf("[ClaimScenariosIT] %d teammates completed %d dependent tasks in %.1f s%n", HERD, TASKS,
                    (System.nanoTime() - started) / 1e9);

            // from the board: every task completed, claimed once
            List<JsonNode> board = rig.board(team);
            assertThat(board).hasSize(TASKS).allSatisfy(t -> {
                assertThat(t.path("status").asText()).isEqualTo("completed");
                assertThat(t.path("claims").asInt()).as(t.path("id").asText()).isEqualTo(1);
            });
            // from the event log: one task_claimed per task, each after the task_completed of every blocker. The lead
            // stores a task_completed just after the completion's commit, which the board can show first: the last
            // ones are awaited
            List<JsonNode> ev = await("every task's task_completed in the log").atMost(PATIENCE).pollInterval(Duration.ofSeconds(1))
                    .until(() -> rig.events(team, "task_claimed", "task_completed"), l -> l.stream()
                            .filter(e -> e.path("type").asText().equals("task_completed"))
                            .map(e -> e.path("data").path("id").asText()).distinct().count() == TASKS);
            Map<String, Long> claimedAt = new HashMap<>();
            Map<String, Long> completedAt = new HashMap<>();
            Map<String, Integer> claimCount = new HashMap<>();
            for (JsonNode e : ev) {
                String id = e.path("data").path("id").asText();
                if (e.path("type").asText().equals("task_claimed")) {
                    claimCount.merge(id, 1, Integer::sum);
                    claimedAt.put(id, e.path("seq").asLong());
                } else {
                    completedAt.put(id, e.path("seq").asLong());
                }
            }
            assertThat(claimCount).hasSize(TASKS).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
            assertThat(completedAt).hasSize(TASKS);
            // never before its blockers: from the board's database timestamps (the claim's statement ran after the
            // blocker's completion committed). Event seqs do not order them: each event is stored after its own commit,
            // so a claim's event may be stored just before the completion's event that made the claim possible.
            Map<String, Instant> boardClaimed = new HashMap<>();
            Map<String, Instant> boardCompleted = new HashMap<>();
            for (JsonNode t : board) {
                boardClaimed.put(t.path("id").asText(), Instant.parse(t.path("claimedAt").asText()));
                boardCompleted.put(t.path("id").asText(), Instant.parse(t.path("completedAt").asText()));
            }
            for (String id : ids) {
                for (String b : deps.get(id)) {
                    assertThat(boardClaimed.get(id)).as("%s claimed after its blocker %s completed", id, b)
                            .isAfter(boardCompleted.get(b));
                }
            }
            // the work was spread: more than one teammate took tasks, and each auto-claimed turn asked the model once
            assertThat(board.stream().map(t -> t.path("owner").asText()).distinct().count()).isGreaterThan(1);
            assertThat(stack.model().requests().stream().filter(r -> "herd-work".equals(r.rule()))).hasSize(TASKS);
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }
}

package dev.cohort.lead.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolArguments;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import dev.cohort.lead.agent.LeadEngine;
import dev.cohort.lead.teams.LeadToolRunner;
import dev.cohort.lead.teams.TeamRepository;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The five board tools driven through {@code execute} with the lead's context: the seed's task-board "try these prompts" run. */
@QuarkusTest
class TaskToolsTest {

    private static final Pattern CREATED = Pattern.compile("Created (task_\\d+): .*");

    @Inject
    TaskTools taskTools;

    @Inject
    TeamRepository teams;

    @Inject
    TaskService service;

    @Inject
    AgroalDataSource ds;

    @Inject
    LeadToolRunner toolRunner;

    ToolRegistry registry;
    String team;
    ToolContext lead;

    @BeforeEach
    void setUp() {
        // the board's tools, then the tool runner's worktree tools as the lead's engine holds them
        WorkspaceCatalogue runnerTools = toolRunner.tools().get();
        List<Tool> tools = new ArrayList<>(taskTools.all());
        for (String name : List.of("create_worktree", "remove_worktree", "keep_worktree", "list_worktrees")) {
            Tool t = runnerTools.find(name).orElseThrow();
            tools.add(taskTools.worktreeBindings().getOrDefault(name, UnaryOperator.identity()).apply(t));
        }
        registry = ToolRegistry.of(tools);
        team = Boards.newTeam(teams, "tools");
        lead = IdentityContext.lead(team);
    }

    /** Runs a tool as the engine would: arguments parsed and checked against the spec first. */
    private ToolResult call(ToolContext ctx, String tool, String argsJson) {
        Tool t = registry.find(tool).orElseThrow();
        ToolArguments.Parsed parsed = ToolArguments.parse(argsJson, t.spec().parameters());
        assertThat(parsed.problems()).as("arguments of %s", tool).isEmpty();
        return t.execute(new ToolCall("call-" + UUID.randomUUID(), tool, parsed.args()), ctx);
    }

    private String create(String argsJson) {
        ToolResult r = call(lead, "create_task", argsJson);
        assertThat(r.error()).as(r.content()).isFalse();
        Matcher m = CREATED.matcher(r.content());
        assertThat(m.matches()).as(r.content()).isTrue();
        return m.group(1);
    }

    @Test
    void theBoardAndWorktreeToolsAreRegisteredUnderTheSeedNamesAndAllowedForTheLead() {
        assertThat(registry.names()).containsExactly("create_task", "list_tasks", "get_task", "claim_task", "complete_task",
                "create_worktree", "remove_worktree", "keep_worktree", "list_worktrees");
        assertThat(registry.all()).allSatisfy(t -> assertThat(t.roles()).contains(AgentRole.LEAD));
        assertThat(registry.find("claim_task").orElseThrow().spec().parameters().properties()).containsOnlyKeys("task_id");
        assertThat(registry.find("create_worktree").orElseThrow().spec().parameters().properties())
                .containsOnlyKeys("name", "base", "task_id");
        assertThat(registry.all().stream().filter(Tool::isMutating).map(Tool::name))
                .containsExactly("create_task", "claim_task", "complete_task", "create_worktree", "remove_worktree",
                        "keep_worktree");
    }

    @Test
    void aWorktreeWhoseTaskIsInProgressIsNotRemovedFromUnderItsHolder() {
        String id = create("{\"subject\":\"auth work\"}");
        service.bindWorktree(team, id, "auth");
        assertThat(call(lead, "claim_task", "{\"task_id\":\"" + id + "\"}").error()).isFalse();
        assertThat(call(lead, "list_tasks", "{}").content()).contains(id + ": auth work [in_progress] [lead] [worktree auth]");
        // the lead's context has no workspace: reaching the tool runner would throw, so the refusal came first
        ToolResult r = call(lead, "remove_worktree", "{\"name\":\"auth\",\"discard_changes\":true}");
        assertThat(r.error()).isTrue();
        assertThat(r.rule()).isEqualTo("worktree-in-use");
        assertThat(r.content()).contains("worktree 'auth' is in use: " + id + " (auth work) is in progress there (held by lead)");
    }

    @Test
    void aWorktreeForAMissingTaskIsRefusedBeforeAnyWorktreeIsMade() {
        // the lead's context has no workspace: reaching the tool runner would throw, so the refusal came first
        ToolResult r = call(lead, "create_worktree", "{\"name\":\"auth\",\"task_id\":\"task_999999\"}");
        assertThat(r.error()).isTrue();
        assertThat(r.rule()).isEqualTo("task:not-found");
        assertThat(r.content()).contains("no task task_999999");
        assertThat(call(lead, "create_worktree", "{\"name\":\"auth\",\"task_id\":\"banana\"}").error()).isTrue();
    }

    @Test
    void theTryThesePromptsScenarioReportsExactlyTheTasksTheSchemaUnblocked() {
        // 1. create four tasks with dependencies
        String schema = create("{\"subject\":\"setup database schema\"}");
        String endpoints = create("{\"subject\":\"create API endpoints\",\"blockedBy\":[\"" + schema + "\"]}");
        String tests = create("{\"subject\":\"write tests\",\"blockedBy\":[\"" + endpoints + "\"]}");
        String docs = create("{\"subject\":\"write docs\",\"description\":\"README and API reference\",\"blockedBy\":[\""
                + schema + "\"]}");

        // 2. list: four pending tasks with their dependencies
        assertThat(call(lead, "list_tasks", "{}").content()).isEqualTo(String.join("\n",
                "  " + schema + ": setup database schema [pending] — ready to claim",
                "  " + endpoints + ": create API endpoints [pending] (blockedBy: " + schema + ") — blocked by " + schema,
                "  " + tests + ": write tests [pending] (blockedBy: " + endpoints + ") — blocked by " + endpoints,
                "  " + docs + ": write docs [pending] (blockedBy: " + schema + ") — blocked by " + schema,
                "      README and API reference"));

        // claiming a blocked task is refused, naming its blockers
        ToolResult blocked = call(lead, "claim_task", "{\"task_id\":\"" + tests + "\"}");
        assertThat(blocked).isEqualTo(new ToolResult("Error: " + tests + " (write tests) is blocked by " + endpoints
                + " (create API endpoints) [pending]; complete those first", true, "task:blocked"));

        // 3. claim the first unblocked task and complete it
        assertThat(call(lead, "claim_task", "{\"task_id\":\"" + schema + "\"}"))
                .isEqualTo(ToolResult.ok("Claimed " + schema + " (setup database schema) → in_progress, owner lead"));
        assertThat(call(lead, "complete_task", "{\"task_id\":\"" + schema + "\"}")).isEqualTo(ToolResult.ok(
                "Completed " + schema + " (setup database schema)\nUnblocked: " + endpoints + " (create API endpoints), "
                        + docs + " (write docs)"));

        // 4. list again: schema completed by lead; endpoints and docs claimable; tests still blocked by endpoints
        assertThat(call(lead, "list_tasks", "{}").content()).isEqualTo(String.join("\n",
                "  " + schema + ": setup database schema [completed] [lead]",
                "  " + endpoints + ": create API endpoints [pending] (blockedBy: " + schema + ") — ready to claim",
                "  " + tests + ": write tests [pending] (blockedBy: " + endpoints + ") — blocked by " + endpoints,
                "  " + docs + ": write docs [pending] (blockedBy: " + schema + ") — ready to claim",
                "      README and API reference"));

        // completing endpoints unblocks tests only, not docs again (no re-reporting)
        call(lead, "claim_task", "{\"task_id\":\"" + endpoints + "\"}");
        assertThat(call(lead, "complete_task", "{\"task_id\":\"" + endpoints + "\"}").content())
                .isEqualTo("Completed " + endpoints + " (create API endpoints)\nUnblocked: " + tests + " (write tests)");
        call(lead, "claim_task", "{\"task_id\":\"" + docs + "\"}");
        assertThat(call(lead, "complete_task", "{\"task_id\":\"" + docs + "\"}").content())
                .isEqualTo("Completed " + docs + " (write docs)");

        List<Boards.StoredEvent> events = Boards.taskEvents(ds, team);
        assertThat(events.stream().map(e -> e.type() + ":" + e.data().get("id").asText()).toList()).containsExactly(
                "task_created:" + schema, "task_created:" + endpoints, "task_created:" + tests, "task_created:" + docs,
                "task_claimed:" + schema, "task_completed:" + schema, "task_claimed:" + endpoints,
                "task_completed:" + endpoints, "task_claimed:" + docs, "task_completed:" + docs);
        assertThat(events).allSatisfy(e -> assertThat(e.agent()).isEqualTo("lead"));
        assertThat(events.get(3).data().get("blockedBy").toString()).isEqualTo("[\"" + schema + "\"]");
        assertThat(events.get(5).data().get("unblocked").toString()).isEqualTo("[{\"id\":\"" + endpoints
                + "\",\"subject\":\"create API endpoints\"},{\"id\":\"" + docs + "\",\"subject\":\"write docs\"}]");
    }

    @Test
    void dependenciesMustExistInTheTeamSoNoTaskCanWaitForever() {
        String other = Boards.newTeam(teams, "other");
        String foreign = create("{\"subject\":\"a task of this team\"}");
        ToolResult r = call(IdentityContext.lead(other), "create_task",
                "{\"subject\":\"x\",\"blockedBy\":[\"" + foreign + "\",\"task_999999999\"]}");
        assertThat(r).isEqualTo(new ToolResult("Error: blockedBy names tasks that do not exist in team " + other + ": "
                + foreign + ", task_999999999; create dependencies first (list_tasks shows the ids)", true, "task:not-found"));
        assertThat(call(IdentityContext.lead(other), "list_tasks", "{}").content()).isEqualTo("No tasks. Use create_task to add one.");
    }

    @Test
    void cyclesAreRefusedBecauseADependencyMustBeOlderThanItsDependant() throws SQLException {
        String a = create("{\"subject\":\"a\"}");
        String b = create("{\"subject\":\"b\",\"blockedBy\":[\"" + a + "\"]}");
        long next = Long.parseLong(b.substring(5)) + 1;
        // a task cannot name itself or a later task: at creation time neither exists
        assertThat(call(lead, "create_task", "{\"subject\":\"self\",\"blockedBy\":[\"task_" + next + "\"]}").rule())
                .isEqualTo("task:not-found");
        // and the database refuses an edge that would close the cycle a -> b -> a, or a self-edge
        for (long[] edge : new long[][] {{Long.parseLong(a.substring(5)), Long.parseLong(b.substring(5))},
                {Long.parseLong(a.substring(5)), Long.parseLong(a.substring(5))}}) {
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO lead.task_deps (team, task_id, depends_on) VALUES (?, ?, ?)")) {
                ps.setString(1, team);
                ps.setLong(2, edge[0]);
                ps.setLong(3, edge[1]);
                assertThatThrownBy(ps::executeUpdate).isInstanceOf(SQLException.class).hasMessageContaining("check constraint");
            }
        }
    }

    @Test
    void badArgumentsAreModelVisibleErrorsNamingTheRule() {
        assertThat(call(lead, "create_task", "{\"subject\":\"   \"}"))
                .isEqualTo(new ToolResult("Error: subject is required (a one-line title)", true, "task:invalid"));
        assertThat(call(lead, "create_task", "{\"subject\":\"" + "s".repeat(201) + "\"}").content())
                .isEqualTo("Error: subject is longer than 200 characters; put details in description");
        assertThat(call(lead, "create_task", "{\"subject\":\"x\",\"blockedBy\":[\"../../etc/passwd\"]}").content())
                .isEqualTo("Error: blockedBy entry \"../../etc/passwd\" is not a task id (task_<number>)");
        assertThat(call(lead, "get_task", "{\"task_id\":\"../x\"}"))
                .isEqualTo(new ToolResult("Error: invalid task id \"../x\": must look like task_<number>, e.g. task_1",
                        true, "task:invalid"));
        assertThat(call(lead, "claim_task", "{\"task_id\":\"task_999999999\"}"))
                .isEqualTo(new ToolResult("Error: no task task_999999999 in team " + team
                        + " (list_tasks shows the ids)", true, "task:not-found"));
        assertThat(call(lead, "complete_task", "{\"task_id\":\"task_999999999\"}").rule()).isEqualTo("task:not-found");
        assertThat(ToolArguments.parse("{\"task_id\":\"task_1\",\"owner\":\"alice\"}",
                registry.find("claim_task").orElseThrow().spec().parameters()).problems())
                .as("identity is never an argument").containsExactly("unknown argument 'owner'; accepted: [task_id]");
    }

    @Test
    void aTaskHeldBySomeoneElseIsRefusedNamingTheOwnerAndOnlyTheOwnerCompletes() {
        String t = create("{\"subject\":\"shared work\"}");
        ToolContext alice = IdentityContext.teammate(team, "alice");
        assertThat(call(lead, "complete_task", "{\"task_id\":\"" + t + "\"}"))
                .isEqualTo(new ToolResult("Error: " + t + " (shared work) is pending: nobody holds it (a lease may have "
                        + "expired or been released), so you cannot complete it; claim it first", true, "task:status"));
        assertThat(call(alice, "claim_task", "{\"task_id\":\"" + t + "\"}").content())
                .isEqualTo("Claimed " + t + " (shared work) → in_progress, owner alice");
        assertThat(call(lead, "claim_task", "{\"task_id\":\"" + t + "\"}"))
                .isEqualTo(new ToolResult("Error: " + t + " (shared work) is already claimed by alice; pick another task",
                        true, "task:owned"));
        assertThat(call(lead, "complete_task", "{\"task_id\":\"" + t + "\"}"))
                .isEqualTo(new ToolResult("Error: " + t + " (shared work) is held by alice; only the holder can complete it",
                        true, "task:not-owner"));
        assertThat(call(alice, "claim_task", "{\"task_id\":\"" + t + "\"}").content())
                .as("claiming what you hold is idempotent").isEqualTo("You already hold " + t + " (shared work) (in_progress)");
        assertThat(call(alice, "complete_task", "{\"task_id\":\"" + t + "\"}").content()).isEqualTo("Completed " + t + " (shared work)");
        assertThat(call(alice, "complete_task", "{\"task_id\":\"" + t + "\"}").content())
                .isEqualTo(t + " (shared work) was already completed by you");
        assertThat(call(lead, "claim_task", "{\"task_id\":\"" + t + "\"}").content())
                .isEqualTo("Error: " + t + " (shared work) is already completed by alice; nothing to claim");
        assertThat(Boards.taskEvents(ds, team).stream().map(e -> e.type() + "/" + e.agent()).toList())
                .as("repeats emit nothing").containsExactly("task_created/lead", "task_claimed/alice", "task_completed/alice");
    }

    /** A call as the engine would make it, to be executed (and repeated, as a resumed turn does) with {@link #run}. */
    private ToolCall newCall(String tool, String argsJson) {
        ToolArguments.Parsed parsed = ToolArguments.parse(argsJson, registry.find(tool).orElseThrow().spec().parameters());
        assertThat(parsed.problems()).as("arguments of %s", tool).isEmpty();
        return new ToolCall("call-" + UUID.randomUUID(), tool, parsed.args());
    }

    private ToolResult run(ToolContext ctx, ToolCall c) {
        return registry.find(c.name()).orElseThrow().execute(c, ctx);
    }

    private List<String> taskEventLines() {
        return Boards.taskEvents(ds, team).stream().map(e -> e.type() + ":" + e.data().get("id").asText()).toList();
    }

    @Test
    void aRepeatedCreateTaskGetsTheFirstResultAndMakesOneTask() {
        ToolCall c = newCall("create_task", "{\"subject\":\"setup database schema\"}");

        ToolResult first = run(lead, c);
        ToolResult repeat = run(lead, c); // the resumed turn of a host that crashed before saving the result

        assertThat(first.content()).matches("Created task_\\d+: setup database schema");
        assertThat(repeat).isEqualTo(first);
        String id = first.content().substring("Created ".length(), first.content().indexOf(':'));
        assertThat(service.list(team)).extracting(t -> "task_" + t.id()).containsExactly(id);
        assertThat(taskEventLines()).containsExactly("task_created:" + id);
    }

    @Test
    void aRepeatedClaimTaskGetsTheFirstResultAndClaimsOnce() {
        String t = create("{\"subject\":\"claim me\"}");
        ToolCall c = newCall("claim_task", "{\"task_id\":\"" + t + "\"}");

        ToolResult first = run(lead, c);
        ToolResult repeat = run(lead, c);

        assertThat(first).isEqualTo(ToolResult.ok("Claimed " + t + " (claim me) → in_progress, owner lead"));
        assertThat(repeat).as("not 'You already hold'").isEqualTo(first);
        assertThat(service.get(team, t).claims()).isEqualTo(1);
        assertThat(taskEventLines()).containsExactly("task_created:" + t, "task_claimed:" + t);
    }

    @Test
    void aRepeatedCompleteTaskGetsTheFirstResultWithTheTasksItUnblocked() {
        String schema = create("{\"subject\":\"schema\"}");
        String api = create("{\"subject\":\"api\",\"blockedBy\":[\"" + schema + "\"]}");
        call(lead, "claim_task", "{\"task_id\":\"" + schema + "\"}");
        ToolCall c = newCall("complete_task", "{\"task_id\":\"" + schema + "\"}");

        ToolResult first = run(lead, c);
        ToolResult repeat = run(lead, c);

        assertThat(first).isEqualTo(ToolResult.ok("Completed " + schema + " (schema)\nUnblocked: " + api + " (api)"));
        assertThat(repeat).as("not 'was already completed by you'").isEqualTo(first);
        assertThat(taskEventLines()).containsExactly("task_created:" + schema, "task_created:" + api,
                "task_claimed:" + schema, "task_completed:" + schema);
    }

    @Test
    void aCallIdReusedWithOtherArgumentsIsAModelVisibleErrorAndChangesNothing() {
        ToolCall c = newCall("create_task", "{\"subject\":\"first\"}");
        String t = run(lead, c).content().substring("Created ".length()).split(":")[0];

        ToolResult otherArgs = run(lead, new ToolCall(c.id(), "create_task", newCall("create_task",
                "{\"subject\":\"second\"}").args()));
        ToolResult otherTool = run(lead, new ToolCall(c.id(), "claim_task", newCall("claim_task",
                "{\"task_id\":\"" + t + "\"}").args()));

        assertThat(otherArgs).isEqualTo(new ToolResult("Error: call id '" + c.id() + "' was already used by " + team
                + "/lead for a different call (create_task with other arguments); this create_task call was not run. A"
                + " call id names exactly one call: issue this call again as a new call", true, EffectKey.REUSED_RULE));
        assertThat(otherTool.rule()).isEqualTo(EffectKey.REUSED_RULE);
        assertThat(otherTool.content()).contains("for a different call (create_task); this claim_task call was not run");
        assertThat(service.list(team)).extracting(r -> r.subject() + "/" + r.status()).containsExactly("first/pending");
        assertThat(taskEventLines()).containsExactly("task_created:" + t);
    }

    @Test
    void aRefusedCallIsNotRecordedSoItsRepeatIsDecidedAgain() {
        String dep = create("{\"subject\":\"dep\"}");
        String t = create("{\"subject\":\"blocked\",\"blockedBy\":[\"" + dep + "\"]}");
        ToolCall claim = newCall("claim_task", "{\"task_id\":\"" + t + "\"}");
        assertThat(run(lead, claim).rule()).isEqualTo("task:blocked");
        call(lead, "claim_task", "{\"task_id\":\"" + dep + "\"}");
        call(lead, "complete_task", "{\"task_id\":\"" + dep + "\"}");

        assertThat(run(lead, claim)).isEqualTo(ToolResult.ok("Claimed " + t + " (blocked) → in_progress, owner lead"));
    }

    @Test
    void concurrentRepeatsOfOneCreateMakeOneTaskAndGiveOneAnswer() throws Exception {
        ToolCall c = newCall("create_task", "{\"subject\":\"raced\"}");
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<ToolResult>> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                all.add(pool.submit(() -> {
                    start.await();
                    return run(lead, c);
                }));
            }
            start.countDown();
            Set<ToolResult> answers = new HashSet<>();
            for (Future<ToolResult> f : all) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }
            assertThat(answers).singleElement().satisfies(r -> assertThat(r.content()).matches("Created task_\\d+: raced"));
            assertThat(service.list(team)).hasSize(1);
            assertThat(Boards.taskEvents(ds, team)).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Inject
    LeadEngine engine;

    @Test
    void repeatedWorktreeCallsGetTheirFirstResultsAndDoNotBindOrUnbindAgain() {
        String wt = "wt-idem-" + UUID.randomUUID().toString().substring(0, 8);
        RestAssured.given().contentType("application/json").body(Map.of("id", wt))
                .post("/api/v1/teams").then().statusCode(201); // prepares the team's git workspace on the tool runner
        // the lead of the team with the real tool runner as its workspace (the team workspace as cwd)
        ToolContext ctx = new IdentityContext(wt, "lead", AgentRole.LEAD, engine.workspace());
        String t = "task_" + service.create(wt, "lead", "auth work", "", List.of()).id();
        ToolCall make = newCall("create_worktree", "{\"name\":\"auth\",\"task_id\":\"" + t + "\"}");
        ToolResult made = run(ctx, make);
        assertThat(made.content()).as(made.content()).endsWith("\nBound " + t + " (auth work) to worktree auth.");
        service.unbindWorktree(wt, "auth"); // changed since: the repeat must not bind it again

        assertThat(run(ctx, make)).isEqualTo(made);
        assertThat(service.get(wt, t).worktree()).isNull();

        service.bindWorktree(wt, t, "auth");
        ToolCall drop = newCall("remove_worktree", "{\"name\":\"auth\"}");
        ToolResult dropped = run(ctx, drop);
        assertThat(dropped.content()).as(dropped.content()).endsWith("\nUnbound: " + t + " (auth work).");
        service.bindWorktree(wt, t, "auth"); // bound again since: the repeat must not unbind it

        assertThat(run(ctx, drop)).as("with its Unbound line").isEqualTo(dropped);
        assertThat(service.get(wt, t).worktree()).isEqualTo("auth");
    }

    @Test
    void getTaskShowsTheWholeTaskAsJson() throws Exception {
        String dep = create("{\"subject\":\"dep\"}");
        String t = create("{\"subject\":\"detailed\",\"description\":\"all the details\",\"blockedBy\":[\"" + dep + "\"]}");
        ObjectNode v = (ObjectNode) Json.MAPPER.readTree(call(lead, "get_task", "{\"task_id\":\"" + t + "\"}").content());
        Map<String, String> fields = Map.of("id", t, "subject", "detailed", "description", "all the details",
                "status", "pending", "blockedBy", "[\"" + dep + "\"]", "blockers", "[\"" + dep + "\"]",
                "claimable", "false", "createdBy", "lead");
        assertThat(fields.keySet().stream().collect(Collectors.toMap(k -> k,
                k -> v.get(k).isTextual() ? v.get(k).asText() : v.get(k).toString()))).isEqualTo(fields);
        assertThat(v.has("owner")).isFalse();
        assertThat(v.has("leaseToken")).as("the lease token is the holder's secret").isFalse();
    }
}

package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.ModelRetry;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.subagent.SpawnSubagentTool;
import dev.cohort.core.tools.todo.TodoItem;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The seams hosts of many agents need, with an in-process model and in-process tools: effects instead of
 * tool names, the permission subject a tool reports, per-call working directories, per-agent Java hooks, inbox items
 * with ids, detach versus cancel, and approvals that park the turn instead of holding a thread.
 */
class EngineSeamsTest {

    /** A tool with a fixed name and mutating flag whose behaviour and permission subject the test chooses. */
    static final class TestTool implements Tool {
        private final ToolSpecification spec;
        private final boolean mutating;
        private final Function<ToolCall, PermissionSubject> subject;
        private final BiFunction<ToolCall, ToolContext, ToolResult> body;
        final List<String> ranIn = Collections.synchronizedList(new ArrayList<>());

        TestTool(String name, boolean mutating, Function<ToolCall, PermissionSubject> subject,
                BiFunction<ToolCall, ToolContext, ToolResult> body) {
            this.spec = ToolSchemas.spec(name, "a test tool", ToolSchemas.object()
                    .addProperty("n", ToolSchemas.integer("a number")).build());
            this.mutating = mutating;
            this.subject = subject;
            this.body = body;
        }

        @Override
        public String name() {
            return spec.name();
        }

        /** Any agent may hold it, subagents included (as the workspace tools it stands for). */
        @Override
        public Set<AgentRole> roles() {
            return Set.of(AgentRole.LEAD, AgentRole.TEAMMATE, AgentRole.SUBAGENT);
        }

        @Override
        public ToolSpecification spec() {
            return spec;
        }

        @Override
        public boolean isMutating() {
            return mutating;
        }

        @Override
        public PermissionSubject permissionSubject(ObjectNode args) {
            return subject.apply(new ToolCall("x", name(), args));
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            ranIn.add(String.valueOf(ctx.cwd()));
            return body.apply(call, ctx);
        }
    }

    /** Scripted in-process model: each reply is chosen by the number of the call in the turn. */
    static final class Script implements ModelClient {
        final List<Function<Request, Reply>> replies = new ArrayList<>();
        final List<Request> seen = Collections.synchronizedList(new ArrayList<>());

        Script then(Function<Request, Reply> r) {
            replies.add(r);
            return this;
        }

        Script calls(String... toolNames) {
            List<ModelToolCall> calls = new ArrayList<>();
            for (int i = 0; i < toolNames.length; i++) {
                calls.add(new ModelToolCall("c" + replies.size() + "_" + i, toolNames[i], "{\"n\":" + i + "}"));
            }
            return then(r -> Reply.calls(null, calls));
        }

        Script answers(String text) {
            return then(r -> Reply.text(text));
        }

        @Override
        public Reply chat(Request request) {
            seen.add(request);
            return replies.get(seen.size() - 1).apply(request);
        }
    }

    /** Saves the last state as JSON (what a database row holds) and every save's inbox ids. */
    static final class Store implements StateStore {
        final AtomicReference<String> json = new AtomicReference<>();
        final List<List<String>> ids = Collections.synchronizedList(new ArrayList<>());
        final List<AgentState> states = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void save(StepSave step) {
            json.set(step.state().toJson());
            states.add(step.state());
            ids.add(step.injectedIds());
        }

        AgentState last() {
            return AgentState.fromJson(json.get());
        }
    }

    /** An approval gateway whose answers the test sets per call id; records every ask. */
    static final class Approvals implements ApprovalGateway {
        final Map<String, Decision> answers = new ConcurrentHashMap<>();
        final List<Request> asked = Collections.synchronizedList(new ArrayList<>());

        @Override
        public Decision check(Request r) {
            asked.add(r);
            return answers.getOrDefault(r.callId(), Decision.pending("appr-" + r.callId()));
        }
    }

    private final EngineHarness.Events events = new EngineHarness.Events();
    private final Store store = new Store();
    private final Approvals approvals = new Approvals();

    private AgentEngine engine(Script model, Tool... tools) {
        return AgentEngine.builder().model(model).tools(ToolRegistry.of(List.of(tools))).events(events)
                .approvals(approvals).bundledSkills(List.of()).sleeper(d -> { }).build();
    }

    private AgentContext agent(Tool... tools) {
        Set<String> names = new HashSet<>();
        for (Tool t : tools) {
            names.add(t.name());
        }
        return AgentContext.of("t", "a", AgentRole.TEAMMATE, (tool, id, args, target) -> ToolOutcome.ok(""))
                .withAllowlist(names).withStore(store);
    }

    private static TestTool plain(String name, boolean mutating) {
        return new TestTool(name, mutating, c -> PermissionSubject.NONE, (c, ctx) -> ToolResult.ok("done " + c.id()));
    }

    private static TestTool destructive(String name) {
        return new TestTool(name, true, c -> new PermissionSubject.Destructive("test-destructive", "it destroys"),
                (c, ctx) -> ToolResult.ok("destroyed " + c.id()));
    }

    // ---- effects and the per-call working directory --------------------------------------------------------------

    @Test
    void aTaskClaimedEffectReachesTheHostAndTheNextCallOfTheSameTurnRunsInTheTasksWorktree() {
        TestTool claim = new TestTool("claim", true, c -> PermissionSubject.NONE,
                (c, ctx) -> ToolResult.ok("claimed task_7").with(new ToolEffect.TaskClaimed("task_7", "wt-auth")));
        TestTool work = plain("work", false);
        AtomicReference<String> cwd = new AtomicReference<>(null);
        List<ToolEffect> seen = new ArrayList<>();
        Consumer<ToolEffect> host = e -> {
            seen.add(e);
            if (e instanceof ToolEffect.TaskClaimed t) {
                cwd.set("wt:" + t.worktree());
            }
        };
        Script model = new Script().calls("work").calls("claim").calls("work").answers("done");
        TurnResult r = engine(model, claim, work).open(agent(claim, work).withCwd(cwd::get).withEffects(host), null)
                .run("go");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(seen).containsExactly(new ToolEffect.TaskClaimed("task_7", "wt-auth"));
        assertThat(work.ranIn).containsExactly("null", "wt:wt-auth");
    }

    @Test
    void aFailedCallsEffectsAreNotAppliedAndAHostThatFailsToApplyOneIsAnErrorEventNotACrash() {
        TestTool failing = new TestTool("failing", false, c -> PermissionSubject.NONE,
                (c, ctx) -> ToolResult.error("nope", "it failed").with(new ToolEffect.TaskClaimed("task_1", null)));
        TestTool claim = new TestTool("claim", false, c -> PermissionSubject.NONE,
                (c, ctx) -> ToolResult.ok("claimed").with(new ToolEffect.TaskClaimed("task_2", null)));
        List<ToolEffect> seen = new ArrayList<>();
        Script model = new Script().calls("failing", "claim").answers("done");
        TurnResult r = engine(model, failing, claim).open(agent(failing, claim).withEffects(e -> {
            seen.add(e);
            throw new IllegalStateException("host bug");
        }), null).run("go");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(seen).containsExactly(new ToolEffect.TaskClaimed("task_2", null));
        assertThat(events.dataOf(EventType.ERROR)).extracting(d -> d.path("message").asText())
                .anyMatch(m -> m.contains("host bug"));
    }

    @Test
    void theEngineReactsToTheTodoEffectOfAnyToolNotToTheNameTodoWrite() {
        TestTool planner = new TestTool("planner", false, c -> PermissionSubject.NONE, (c, ctx) -> {
            ctx.todos().replace(List.of(new TodoItem("step one", "in_progress")));
            return ToolResult.ok("planned").with(new ToolEffect.TodosChanged());
        });
        Script model = new Script().calls("planner").answers("done");
        engine(model, planner).open(agent(planner), null).run("plan");

        assertThat(events.dataOf(EventType.TODO_UPDATED)).singleElement()
                .satisfies(d -> assertThat(d.path("todos").get(0).path("content").asText()).isEqualTo("step one"));
    }

    // ---- the permission gate decides on the subject ------------------------------------------------------------

    @Test
    void theGateAsksForWhatAToolSaysIsAtStakeWhateverItsName() {
        TestTool rm = new TestTool("cleanup", true, c -> new PermissionSubject.Command("rm -rf build"),
                (c, ctx) -> ToolResult.ok("cleaned"));
        TestTool fakeBash = plain("bash", true); // named bash, but puts nothing at stake
        approvals.answers.put("c0_0", ApprovalGateway.Decision.deny("not now"));
        Script model = new Script().calls("cleanup", "bash").answers("done");
        engine(model, rm, fakeBash).open(agent(rm, fakeBash), null).run("clean");

        assertThat(approvals.asked).singleElement().satisfies(a -> {
            assertThat(a.tool()).isEqualTo("cleanup");
            assertThat(a.reason()).contains("rm");
        });
        assertThat(rm.ranIn).isEmpty();
        assertThat(fakeBash.ranIn).hasSize(1);
    }

    // ---- per-agent Java hooks ------------------------------------------------------------------------------------

    @Test
    void anAgentsOwnPlanGateHookRefusesMutatingToolsAndLetsReadOnlyOnesRun() {
        TestTool edit = plain("edit", true);
        TestTool look = plain("look", false);
        ToolRegistry registry = ToolRegistry.of(List.of(edit, look));
        PreToolUseHook planGate = (call, ctx) -> registry.find(call.name()).map(Tool::isMutating).orElse(true)
                ? Optional.of("blocked: your plan is not approved yet; submit_plan first") : Optional.empty();
        Script model = new Script().calls("edit", "look").answers("done");
        AgentEngine e = AgentEngine.builder().model(model).tools(registry).events(events).approvals(approvals)
                .bundledSkills(List.of()).build();
        e.open(agent(edit, look).withHooks(List.of(planGate)), null).run("change it");

        assertThat(edit.ranIn).isEmpty();
        assertThat(look.ranIn).hasSize(1);
        assertThat(events.dataOf(EventType.TOOL_CALL_FINISHED)).extracting(d -> d.path("tool").asText() + ":"
                + d.path("rule").asText("")).containsExactly("edit:hook", "look:");
    }

    @Test
    void anotherAgentOfTheSameEngineDoesNotGetTheHook() {
        TestTool edit = plain("edit", true);
        PreToolUseHook refuseAll = (call, ctx) -> Optional.of("blocked");
        Script model = new Script().calls("edit").answers("done").calls("edit").answers("done");
        AgentEngine e = engine(model, edit);
        e.open(agent(edit).withHooks(List.of(refuseAll)), null).run("first");
        e.open(AgentContext.of("t", "b", AgentRole.TEAMMATE, (tool, id, args, target) -> ToolOutcome.ok(""))
                .withAllowlist(Set.of("edit")), null).run("second");

        assertThat(edit.ranIn).hasSize(1);
    }

    // ---- inbox items with ids ------------------------------------------------------------------------------------

    /** An inbox that hands out what the test queued, once. */
    private static InboxSource drains(List<InboxItem> queue) {
        return () -> {
            List<InboxItem> out = List.copyOf(queue);
            queue.clear();
            return out;
        };
    }

    @Test
    void theSaveOfTheStepThatInjectedAnItemCarriesExactlyItsIdOnce() {
        TestTool look = plain("look", false);
        List<InboxItem> queue = Collections.synchronizedList(new ArrayList<>());
        InboxSource inbox = drains(queue);
        Script model = new Script().then(r -> {
            queue.add(new InboxItem("m1", "<message from=\"bob\">build is green</message>"));
            queue.add(new InboxItem("m2", "<message from=\"eve\">tests too</message>"));
            return ModelClient.Reply.calls(null, List.of(new ModelToolCall("c1", "look", "{}")));
        }).answers("done");
        engine(model, look).open(agent(look).withInbox(inbox), null).run("watch");

        List<String> all = store.ids.stream().flatMap(List::stream).toList();
        assertThat(all).containsExactly("m1", "m2");
        int first = -1;
        for (int i = 0; i < store.states.size(); i++) {
            if (store.states.get(i).messages().stream().anyMatch(m -> "<message from=\"bob\">build is green</message>"
                    .equals(m.content()))) {
                first = i;
                break;
            }
        }
        assertThat(first).isPositive();
        assertThat(store.ids.get(first)).containsExactly("m1", "m2");
    }

    @Test
    void everyEventOfATurnCarriesItsPromptAndItsEndListsThePromptsInjectedIntoIt() {
        TestTool look = plain("look", false);
        List<InboxItem> queue = Collections.synchronizedList(new ArrayList<>());
        InboxSource inbox = drains(queue);
        Script model = new Script().then(r -> {
            queue.add(new InboxItem("prompt:p2", "and the docs too", "p2"));
            queue.add(new InboxItem("m1", "<message from=\"bob\">build is green</message>"));
            return ModelClient.Reply.calls(null, List.of(new ModelToolCall("c1", "look", "{}")));
        }).answers("done");
        TurnResult r = engine(model, look).open(agent(look).withInbox(inbox), null)
                .run("fix the build", "http", false, List.of(), "p1");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(events.all).isNotEmpty().allSatisfy(e -> assertThat(e.promptId()).isEqualTo("p1"));
        assertThat(events.dataOf(EventType.TURN_COMPLETED).getFirst().path("promptIds").toString())
                .isEqualTo("[\"p1\",\"p2\"]");
        // the prompts travel with the saved turn, so a resumed turn goes on carrying them
        assertThat(store.states.stream().filter(st -> st.turn() != null).reduce((a, b) -> b).orElseThrow().turn()
                .promptIds()).containsExactly("p1", "p2");
        // the envelope is on the wire, the data has no copy of it
        JsonNode wire = Json.MAPPER.valueToTree(events.all.getFirst());
        assertThat(wire.path("promptId").asText()).isEqualTo("p1");
        assertThat(wire.path("data").has("promptId")).isFalse();
        assertThat(Event.parse(Json.write(events.all.getFirst())).promptId()).isEqualTo("p1");
    }

    @Test
    void aTurnThatAnswersNoPromptHasNoPromptInItsEvents() {
        Script model = new Script().answers("hello");
        TestTool look = plain("look", false);
        engine(model, look).open(agent(look), null).run("hi");
        assertThat(events.all).isNotEmpty().allSatisfy(e -> assertThat(e.promptId()).isNull());
        assertThat(Json.MAPPER.valueToTree(events.all.getFirst()).has("promptId")).isFalse();
        assertThat(events.dataOf(EventType.TURN_COMPLETED).getFirst().has("promptIds")).isFalse();
    }

    @Test
    void idsOfAFailedSaveGoWithTheNextSave() {
        TestTool look = plain("look", false);
        List<InboxItem> queue = Collections.synchronizedList(new ArrayList<>(List.of(new InboxItem("m1", "hello"))));
        InboxSource inbox = () -> {
            List<InboxItem> out = List.copyOf(queue);
            queue.clear();
            return out;
        };
        AtomicInteger saves = new AtomicInteger();
        List<List<String>> ids = new ArrayList<>();
        StateStore flaky = step -> {
            List<String> i = step.injectedIds();
            if (!i.isEmpty() && saves.incrementAndGet() == 1) {
                throw new IllegalStateException("database hiccup");
            }
            ids.add(List.copyOf(i));
        };
        Script model = new Script().calls("look").calls("look").answers("done");
        AgentSession s = engine(model, look).open(agent(look).withInbox(inbox).withStore(flaky), null);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        try {
            s.run("go");
        } catch (IllegalStateException e) {
            thrown.set(e);
        }
        assertThat(thrown.get()).hasMessage("database hiccup");
        // the host retries the turn on the same session (e.g. after the store recovered)
        s.resume();
        assertThat(ids.stream().flatMap(List::stream).toList()).containsExactly("m1");
    }

    // ---- the turn's input is saved beside its first model request ------------------------------------------------

    /** Whether {@code s} is a turn's input step: its last message is the user's. */
    private static boolean isInputStep(AgentState s) {
        return !s.messages().isEmpty() && s.messages().getLast().role() == Message.Role.USER;
    }

    /** Whether {@code s} ends with a tool result (the step after a call). */
    private static boolean endsWithResult(AgentState s) {
        return !s.messages().isEmpty() && s.messages().getLast().role() == Message.Role.TOOL;
    }

    @Test
    void theTurnsInputIsSavedWhileItsFirstRequestIsUnderWayAndJoinedBeforeTheReplyIsUsed() throws Exception {
        TestTool look = plain("look", false);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean inProgress = new AtomicBoolean();
        List<AgentState> saved = Collections.synchronizedList(new ArrayList<>());
        StateStore slow = step -> {
            AgentState state = step.state();
            if (isInputStep(state)) {
                inProgress.set(true);
                started.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS); // a synchronous save would wait here
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                inProgress.set(false);
            }
            saved.add(state);
        };
        AtomicReference<Boolean> savingDuringRequest = new AtomicReference<>();
        Script model = new Script().then(r -> {
            try {
                started.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            savingDuringRequest.set(inProgress.get());
            release.countDown();
            return ModelClient.Reply.calls(null, List.of(new ModelToolCall("c1", "look", "{}")));
        }).answers("done");
        TurnResult r = engine(model, look).open(agent(look).withStore(slow), null).run("go");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(savingDuringRequest.get()).as("the input's save ran while the first request was under way").isTrue();
        // the saves in order, the input's first, and nothing lost
        assertThat(isInputStep(saved.getFirst())).isTrue();
        assertThat(saved.getLast().messages()).extracting(Message::role).containsExactly(Message.Role.USER,
                Message.Role.ASSISTANT, Message.Role.TOOL, Message.Role.ASSISTANT);
    }

    @Test
    void aToolResultIsSavedBeforeTheNextRequestLeaves() {
        TestTool look = plain("look", false);
        List<AgentState> saved = Collections.synchronizedList(new ArrayList<>());
        StateStore store = step -> saved.add(step.state());
        AtomicReference<Boolean> resultSaved = new AtomicReference<>();
        Script model = new Script().calls("look").then(r -> {
            resultSaved.set(saved.stream().anyMatch(EngineSeamsTest::endsWithResult));
            return ModelClient.Reply.text("done");
        });
        engine(model, look).open(agent(look).withStore(store), null).run("go");

        assertThat(resultSaved.get()).as("the result was durable before the model saw it").isTrue();
    }

    @Test
    void aTurnsInputStillListedAsPendingUntilItsSaveIsNotInjectedASecondTime() {
        // a store's inbox: an item stays pending until a save carrying its id marks it taken
        Map<String, InboxItem> pending = new LinkedHashMap<>();
        pending.put("inbox:m1", new InboxItem("inbox:m1", "<message from=\"bob\">build is green</message>"));
        InboxSource inbox = () -> List.copyOf(pending.values());
        StateStore taking = step -> step.injectedIds().forEach(pending::remove);
        Script model = new Script().answers("noted");
        TestTool look = plain("look", false);
        engine(model, look).open(agent(look).withInbox(inbox).withStore(taking), null)
                .run("<message from=\"bob\">build is green</message>", "inbox", true, List.of("inbox:m1"));

        assertThat(model.seen).hasSize(1);
        assertThat(model.seen.getFirst().messages()).filteredOn(m -> m.role() == Message.Role.USER).hasSize(1);
        assertThat(pending).isEmpty();
    }

    @Test
    void anInputSaveThatFailsBesideTheRequestEndsTheTurnWithItsErrorAndTheReplyIsNotKept() {
        TestTool look = plain("look", false);
        List<AgentState> saved = Collections.synchronizedList(new ArrayList<>());
        StateStore failing = step -> {
            AgentState state = step.state();
            if (isInputStep(state)) {
                throw new IllegalStateException("fenced: another replica owns the agent");
            }
            saved.add(state);
        };
        Script model = new Script().answers("done");
        AgentSession s = engine(model, look).open(agent(look).withStore(failing), null);

        assertThatThrownBy(() -> s.run("go")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fenced");
        assertThat(saved).noneMatch(st -> st.messages().stream().anyMatch(m -> "done".equals(m.content())));
        assertThat(s.snapshot().messages()).noneMatch(m -> "done".equals(m.content()));
    }

    // ---- detach versus cancel ------------------------------------------------------------------------------------

    @Test
    void aDetachDuringAModelCallKeepsTheTurnInProgressIsNotAModelFailureAndAnotherSessionFinishesIt() {
        TestTool look = plain("look", false);
        AtomicReference<AgentSession> session = new AtomicReference<>();
        Script model = new Script().calls("look").then(r -> {
            session.get().detach();
            throw new IllegalStateException("java.lang.InterruptedException"); // what an interrupted HTTP call gives
        }).answers("finished");
        AgentEngine e = engine(model, look);
        session.set(e.open(agent(look), null));
        TurnResult r = session.get().run("work");

        assertThat(r.reason()).isEqualTo(StopReason.DETACHED);
        assertThat(r.inProgress()).isTrue();
        assertThat(events.dataOf(EventType.TURN_COMPLETED)).isEmpty();
        assertThat(events.dataOf(EventType.ERROR)).isEmpty();
        assertThat(events.dataOf(EventType.MODEL_RETRY)).isEmpty();
        AgentState saved = store.last();
        assertThat(saved.turn()).isNotNull();

        TurnResult done = e.open(agent(look), saved).resume();
        assertThat(done.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(done.text()).isEqualTo("finished");
        assertThat(look.ranIn).hasSize(1);
        assertThat(events.dataOf(EventType.TURN_COMPLETED)).singleElement()
                .satisfies(d -> assertThat(d.path("reason").asText()).isEqualTo("completed"));
    }

    @Test
    void aDetachBetweenCallsLeavesTheRestUnansweredAndTheNextOwnerRunsThemOnce() {
        AtomicReference<AgentSession> session = new AtomicReference<>();
        TestTool first = new TestTool("first", false, c -> PermissionSubject.NONE, (c, ctx) -> {
            session.get().detach();
            return ToolResult.ok("one");
        });
        TestTool second = plain("second", false);
        Script model = new Script().calls("first", "second").answers("done");
        AgentEngine e = engine(model, first, second);
        session.set(e.open(agent(first, second), null));

        assertThat(session.get().run("go").reason()).isEqualTo(StopReason.DETACHED);
        assertThat(second.ranIn).isEmpty();
        TurnResult r = e.open(agent(first, second), store.last()).resume();
        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(first.ranIn).hasSize(1);
        assertThat(second.ranIn).hasSize(1);
    }

    @Test
    void aCancelEndsTheTurnAnsweringTheRestNotRun() {
        AtomicReference<AgentSession> session = new AtomicReference<>();
        TestTool first = new TestTool("first", false, c -> PermissionSubject.NONE, (c, ctx) -> {
            session.get().cancel();
            return ToolResult.ok("one");
        });
        TestTool second = plain("second", false);
        Script model = new Script().calls("first", "second");
        session.set(engine(model, first, second).open(agent(first, second), null));
        TurnResult r = session.get().run("go");

        assertThat(r.reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(second.ranIn).isEmpty();
        assertThat(store.last().turn()).isNull();
        assertThat(store.last().messages()).anyMatch(m -> "not run: the turn was cancelled".equals(m.content()));
        assertThat(events.dataOf(EventType.TURN_COMPLETED)).singleElement()
                .satisfies(d -> assertThat(d.path("reason").asText()).isEqualTo("cancelled"));
    }

    // ---- approvals park the turn ---------------------------------------------------------------------------------

    @Test
    void aPendingApprovalParksTheTurnWithoutRunningTheCallAndAnApprovedResumeRunsItOnce() {
        TestTool rm = destructive("rm");
        Script model = new Script().calls("rm").answers("removed");
        AgentEngine e = engine(model, rm);
        TurnResult parked = e.open(agent(rm), null).run("remove it");

        assertThat(parked.reason()).isEqualTo(StopReason.PARKED);
        assertThat(rm.ranIn).isEmpty();
        assertThat(events.dataOf(EventType.TURN_COMPLETED)).isEmpty();
        AgentState saved = store.last();
        assertThat(saved.turn().waiting()).isEqualTo(new AgentState.Wait("approval", "appr-c0_0", "c0_0"));

        // woken while still pending: parks again without a model call
        TurnResult again = e.open(agent(rm), store.last()).resume();
        assertThat(again.reason()).isEqualTo(StopReason.PARKED);
        assertThat(model.seen).hasSize(1);

        approvals.answers.put("c0_0", ApprovalGateway.Decision.approve());
        AgentSession resumed = e.open(agent(rm), store.last());
        assertThat(resumed.waiting()).isPresent();
        TurnResult done = resumed.resume();
        assertThat(done.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(rm.ranIn).hasSize(1);
        assertThat(store.last().turn()).isNull();
        assertThat(approvals.asked).extracting(ApprovalGateway.Request::callId).containsOnly("c0_0");
        assertThat(approvals.asked).extracting(ApprovalGateway.Request::timeout)
                .containsOnly(EngineSettings.defaults().approvalTimeout());
        // the answered call was run once more? no: resuming the completed state has nothing to do
        assertThat(e.open(agent(rm), store.last()).turnInProgress()).isFalse();
    }

    @Test
    void aDeniedOrExpiredApprovalIsShownToTheModelWithItsReason() {
        TestTool rm = destructive("rm");
        Script model = new Script().calls("rm").answers("ok, not removed");
        AgentEngine e = engine(model, rm);
        e.open(agent(rm), null).run("remove it");
        approvals.answers.put("c0_0", ApprovalGateway.Decision.deny("no answer within 10 min (approval x expired)"));
        TurnResult r = e.open(agent(rm), store.last()).resume();

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(rm.ranIn).isEmpty();
        assertThat(model.seen.get(1).messages()).anyMatch(m -> m.role() == Message.Role.TOOL
                && m.content().contains("needed approval and it was refused (no answer within 10 min"));
    }

    @Test
    void aParkedTurnCancelledBeforeItsResumeEndsWithoutRunningTheCall() {
        TestTool rm = destructive("rm");
        Script model = new Script().calls("rm");
        AgentEngine e = engine(model, rm);
        e.open(agent(rm), null).run("remove it");
        approvals.answers.put("c0_0", ApprovalGateway.Decision.approve());
        AgentSession s = e.open(agent(rm), store.last());
        s.cancel();
        TurnResult r = s.resume();

        assertThat(r.reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(rm.ranIn).isEmpty();
        assertThat(approvals.asked).hasSize(1);
    }

    @Test
    void aSubagentCannotWaitForAnApprovalSoItsAskIsADenialAndNoRequestIsMade() {
        TestTool rm = destructive("bash"); // subagents have the workspace tools only
        Script model = new Script()
                .then(r -> ModelClient.Reply.calls(null, List.of(new ModelToolCall("p1", "spawn_subagent",
                        "{\"description\":\"clean up\"}"))))
                .calls("bash")
                .answers("could not clean: needs approval")
                .answers("the subagent could not clean up");
        Tool spawn = new SpawnSubagentTool();
        AgentEngine e = engine(model, rm, spawn);
        TurnResult r = e.open(agent(rm, spawn).withAllowlist(Set.of("bash", "spawn_subagent")), null).run("clean");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(approvals.asked).isEmpty();
        assertThat(model.seen.get(2).messages()).anyMatch(m -> m.role() == Message.Role.TOOL
                && m.content().contains("a subagent cannot wait for one"));
    }

    // ---- budgets: tokens and cost, per turn, agent and team ------------------------------------------------------

    private TurnResult spend(Budgets budgets, AgentContext ctx, TestTool look) {
        Script model = new Script();
        for (int i = 0; i < 5; i++) {
            model.then(r -> new ModelClient.Reply(null, List.of(new ModelToolCall("c" + model.seen.size(), "look",
                    "{}")), "tool_calls", 1000, 100, "m"));
        }
        AgentEngine e = AgentEngine.builder().model(model).tools(ToolRegistry.of(List.of(look))).events(events)
                .bundledSkills(List.of()).settings(EngineSettings.defaults().withModel("m")
                        .withPrices(Map.of("m", new EngineSettings.ModelPrice(100, 1000))).withBudgets(budgets))
                .build();
        return e.open(ctx, null).run("spend");
    }

    @Test
    void aCostBudgetPerTurnEndsTheTurnWithTheSpendInTheSentence() {
        TestTool look = plain("look", false);
        // each call: 1000 in × $100/M + 100 out × $1000/M = $0.20
        TurnResult r = spend(new Budgets(0, 0, 0, 0.5, 0, 0), agent(look), look);

        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(r.modelCalls()).isEqualTo(3);
        assertThat(r.text()).startsWith("Stopped: this turn cost $0.6");
    }

    @Test
    void aTeamBudgetCountsTheTeamsUsageFromTheHost() {
        TestTool look = plain("look", false);
        AtomicInteger asked = new AtomicInteger();
        AgentContext ctx = agent(look).withTeamUsage(() -> {
            asked.incrementAndGet();
            return new Usage(50_000, 0, 10, 0);
        });
        TurnResult r = spend(new Budgets(0, 0, 50_000, 0, 0, 0), ctx, look);

        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(r.modelCalls()).isZero();
        assertThat(r.text()).contains("team t used 50000 tokens");
        assertThat(asked.get()).isPositive();
    }

    @Test
    void withoutATeamBudgetTheHostIsNeverAskedForTheTeamsUsage() {
        TestTool look = plain("look", false);
        AtomicInteger asked = new AtomicInteger();
        TurnResult r = spend(new Budgets(2000, 0, 0, 0, 0, 0), agent(look).withTeamUsage(() -> {
            asked.incrementAndGet();
            return Usage.ZERO;
        }), look);

        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(asked.get()).isZero();
    }

    // ---- typed payloads ------------------------------------------------------------------------------------------

    @Test
    void loopEventsKeepTheirWireShape() {
        TestTool look = plain("look", false);
        Script model = new Script().calls("look").answers("done");
        engine(model, look).open(agent(look), null).run("go");

        JsonNode started = events.dataOf(EventType.TOOL_CALL_STARTED).get(0);
        assertThat(fields(started)).containsExactly("turnId", "callId", "tool", "args");
        JsonNode finished = events.dataOf(EventType.TOOL_CALL_FINISHED).get(0);
        assertThat(fields(finished)).containsExactly("turnId", "callId", "tool", "durationMs", "error", "preview");
        JsonNode completed = events.dataOf(EventType.TURN_COMPLETED).get(0);
        // status is the engine's (completed, or failed for any other reason), after the fields it had before
        assertThat(fields(completed)).containsExactly("turnId", "reason", "modelCalls", "text", "usage", "agentUsage",
                "status");
        assertThat(completed.path("status").asText()).isEqualTo("completed");
        // cachedTokens (usage views) and model / cachedTokens / costUsd (assistant_message) were added at the end;
        // the model is absent when neither the reply nor the settings name one
        // then cacheWriteTokens / unpricedCalls (usage views) and cacheWriteTokens / priceKnown (assistant_message)
        assertThat(fields(completed.path("usage"))).containsExactly("inputTokens", "outputTokens", "costUsd",
                "cachedTokens", "cacheWriteTokens", "unpricedCalls");
        JsonNode assistant = events.dataOf(EventType.ASSISTANT_MESSAGE).get(0);
        assertThat(fields(assistant)).containsExactly("turnId", "finishReason", "inputTokens", "outputTokens",
                "toolCalls", "cachedTokens", "costUsd", "cacheWriteTokens", "priceKnown");
        assertThat(Json.MAPPER.valueToTree(new ModelRetry.Retry(1, 4, "overloaded",
                529, null, 500, true, "m", "t1", null)).toString())
                .isEqualTo("{\"action\":\"retry\",\"attempt\":1,\"maxAttempts\":4,\"kind\":\"overloaded\",\"status\":529,"
                        + "\"delayMs\":500,\"retryAfter\":true,\"model\":\"m\",\"turnId\":\"t1\"}");
    }

    // ---- a step's events go with its save ------------------------------------------------------------------------

    /** One log of what the store and the sink got, in order: {@code save:<last message's role>[<events>]} or a type. */
    private static final class StepLog implements StateStore, EventSink {
        final List<String> log = Collections.synchronizedList(new ArrayList<>());
        final boolean storesEvents;
        int failNextSavesWithEvents;

        StepLog(boolean storesEvents) {
            this.storesEvents = storesEvents;
        }

        @Override
        public void emit(Event e) {
            log.add(e.type().wire());
        }

        @Override
        public boolean storesEvents() {
            return storesEvents;
        }

        @Override
        public void save(StepSave step) {
            AgentState state = step.state();
            List<Event> events = step.events();
            if (events.isEmpty()) {
                log.add("save:" + last(state));
                return;
            }
            if (failNextSavesWithEvents > 0) {
                failNextSavesWithEvents--;
                throw new IllegalStateException("database hiccup");
            }
            log.add("save:" + last(state) + events.stream().map(e -> e.type().wire()).toList());
        }

        private static String last(AgentState s) {
            return s.messages().getLast().role().name().toLowerCase();
        }
    }

    private AgentEngine engine(Script model, EventSink sink, Tool... tools) {
        return AgentEngine.builder().model(model).tools(ToolRegistry.of(List.of(tools))).events(sink)
                .approvals(approvals).bundledSkills(List.of()).sleeper(d -> { }).build();
    }

    @Test
    void aStoreThatKeepsEventsGetsTheRepliesAndTheResultsEventsWithTheirStepsSaveAndEveryOtherEventInOrder() {
        TestTool look = plain("look", false);
        StepLog steps = new StepLog(true);
        Script model = new Script().calls("look").answers("done");
        TurnResult r = engine(model, steps, look).open(agent(look).withStore(steps), null).run("go");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(steps.log).containsExactly("turn_started", "save:user",
                "save:assistant[assistant_message]", "tool_call_started", "save:tool[tool_call_finished]",
                "save:assistant[assistant_message]", "save:assistant", "turn_completed");
    }

    @Test
    void aStoreWithoutEventsSavesEachStepFirstAndTheStepsEventIsEmittedRightAfterIt() {
        TestTool look = plain("look", false);
        StepLog steps = new StepLog(false);
        Script model = new Script().calls("look").answers("done");
        engine(model, steps, look).open(agent(look).withStore(steps), null).run("go");

        assertThat(steps.log).containsExactly("turn_started", "save:user", "save:assistant", "assistant_message",
                "tool_call_started", "save:tool", "tool_call_finished", "save:assistant", "assistant_message",
                "save:assistant", "turn_completed");
    }

    @Test
    void aSaveThatFailsKeepsItsStepEventsSoEachIsDeliveredOnceInOrderAfterTheTurnIsResumed() {
        TestTool look = plain("look", false);
        StepLog steps = new StepLog(true);
        steps.failNextSavesWithEvents = 1; // the reply's save
        Script model = new Script().calls("look").answers("done");
        AgentSession s = engine(model, steps, look).open(agent(look).withStore(steps), null);
        assertThatThrownBy(() -> s.run("go")).hasMessage("database hiccup");
        assertThat(steps.log).as("neither the reply nor its event is stored").containsExactly("turn_started", "save:user");

        // the host resumes the turn on the same session (the store recovered): the call's start event must not pass
        // the reply's, which goes out first, then the result goes with its save
        s.resume();
        assertThat(steps.log).containsExactly("turn_started", "save:user", "assistant_message", "tool_call_started",
                "save:tool[tool_call_finished]", "save:assistant[assistant_message]", "save:assistant",
                "turn_completed");
        assertThat(look.ranIn).as("the call ran once").hasSize(1);
    }

    private static List<String> fields(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}

package dev.cohort.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.testing.ScriptedModelTestBase;
import dev.cohort.core.tools.AgentRole;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * Budgets that act and the stuck-loop detector, on the real engine against the scripted model server:
 * one {@code budget_warning} per 80 % crossing, {@code budget_exceeded} naming budget, usage and limit, the team's
 * overrides read at every step (raising one lets work continue), and the stuck guard counting only the same call with
 * the same arguments <em>and</em> the same result.
 */
class BudgetActionsTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;

    /** Every call: one bash call worth 300 tokens. */
    static final String LOOP_300 = """
            {"rules":[{"match":{"hasToolResult":false},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo a"}}],"usage":{"prompt_tokens":250,"completion_tokens":50}}},
             {"match":{"lastMessage":"^a"},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo b"}}],"usage":{"prompt_tokens":250,"completion_tokens":50}}},
             {"match":{"lastMessage":"^b"},"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo a"}}],"usage":{"prompt_tokens":250,"completion_tokens":50}}},
             {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo a"}}],"usage":{"prompt_tokens":250,"completion_tokens":50}}}]}""";

    private AgentSession open(EngineSettings settings, EngineHarness.Events events, AgentContext ctx, AgentState s) {
        return EngineHarness.engine(EngineHarness.modelClient(model), events, List.of()).settings(settings).build()
                .open(ctx, s);
    }

    private AgentContext lead() {
        return AgentContext.of("t1", "lead", AgentRole.LEAD, new LocalWorkspace(dir));
    }

    @Test
    void aCachedBudgetIsReadAgainAtItsSourceBeforeTheTurnStopsOnIt() {
        // the host's cache still says $0.001 per agent; the source (the API) was raised to $0.002 meanwhile
        EngineSettings settings = EngineSettings.defaults()
                .withPrices(Map.of("scripted", new EngineSettings.ModelPrice(1.0, 1.0)));
        AtomicReference<Budgets.Overrides> cached = new AtomicReference<>(new Budgets.Overrides(null, null, null, null, 0.001, null));
        AtomicReference<Budgets.Overrides> source = new AtomicReference<>(cached.get());
        AtomicInteger rereads = new AtomicInteger();
        AtomicReference<Boolean> reachable = new AtomicReference<>(true);
        BudgetSource budgets = new BudgetSource() {
            @Override
            public Budgets.Overrides get() {
                return cached.get();
            }

            @Override
            public boolean reread() {
                rereads.incrementAndGet();
                if (!reachable.get()) {
                    return false;
                }
                cached.set(source.get());
                return true;
            }
        };
        EngineHarness.Events events = new EngineHarness.Events();
        model.load(LOOP_300);
        AgentSession s = open(settings, events, lead().withBudgets(budgets), null);

        // within budget: the cache is enough, the source is never asked
        // 0.0003, 0.0006, 0.0009, 0.0012 (reached: asked once, still $0.001 there, so the turn stops)
        TurnResult first = s.run("work");
        assertThat(first.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(model.requests()).hasSize(4);
        assertThat(rereads.get()).isEqualTo(1);

        // raised at the source only: the next turn's first step finds the cache over budget, asks, and runs
        source.set(new Budgets.Overrides(null, null, null, null, 0.002, null));
        model.reset();
        model.load("""
                {"rules":[{"reply":{"text":"done","usage":{"prompt_tokens":250,"completion_tokens":50}}}]}""");
        TurnResult second = s.run("finish");
        assertThat(second.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(rereads.get()).isEqualTo(2);
        assertThat(cached.get().costPerAgentUsd()).isEqualTo(0.002);

        // the source cannot be reached: the cached values stand (0.0015 + 0.0003 ... stops at the $0.002 budget)
        reachable.set(false);
        source.set(new Budgets.Overrides(null, null, null, null, 1.0, null));
        model.reset();
        model.load(LOOP_300);
        TurnResult third = s.run("more");
        assertThat(third.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(third.text()).isEqualTo("Stopped: agent t1/lead cost $0.0021, its budget is $0.002.");
    }

    @Test
    void eightyPercentWarnsOnceThenTheAgentStopsAtItsNextStepWithABudgetExceededEvent() {
        model.load(LOOP_300);
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = open(EngineSettings.defaults().withBudgets(1000, 0), events, lead(), null);

        TurnResult r = s.run("work");

        // 300, 600, 900 (crosses 800: one warning), 1200 (reached: stop before a fifth call)
        assertThat(model.requests()).hasSize(4);
        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        List<JsonNode> warnings = events.dataOf(EventType.BUDGET_WARNING);
        assertThat(warnings).singleElement().satisfies(w -> {
            assertThat(w.path("budget").asText()).isEqualTo("tokensPerTurn");
            assertThat(w.path("scope").asText()).isEqualTo("turn");
            assertThat(w.path("used").asLong()).isEqualTo(900);
            assertThat(w.path("limit").asLong()).isEqualTo(1000);
            assertThat(w.path("percent").asLong()).isEqualTo(90);
            assertThat(w.path("message").asText()).isEqualTo(
                    "Warning: this turn has used 900 tokens, 90 % of its budget tokensPerTurn (1000).");
        });
        assertThat(events.dataOf(EventType.BUDGET_EXCEEDED)).singleElement().satisfies(e -> {
            assertThat(e.path("budget").asText()).isEqualTo("tokensPerTurn");
            assertThat(e.path("used").asLong()).isEqualTo(1200);
            assertThat(e.path("limit").asLong()).isEqualTo(1000);
            assertThat(e.path("message").asText()).isEqualTo("Stopped: this turn used 1200 tokens, its budget is 1000.");
            assertThat(e.path("turnId").asText()).isEqualTo(r.turnId());
        });
        List<String> order = events.all.stream().map(e -> e.type().wire())
                .filter(t -> t.startsWith("budget") || t.equals("turn_completed")).toList();
        assertThat(order).containsExactly("budget_warning", "budget_exceeded", "turn_completed");
        assertThat(events.dataOf(EventType.TURN_COMPLETED).get(0).path("reason").asText()).isEqualTo("budget_exceeded");
    }

    @Test
    void aCostBudgetPerAgentWarnsAndStopsAcrossTurnsAndRaisingTheTeamsOverrideLetsTheNextTurnRun() {
        // price: $1 per million prompt and completion tokens → 300 tokens cost $0.0003; agent budget $0.001
        EngineSettings settings = EngineSettings.defaults().withBudgets(new Budgets(0, 0, 0, 0, 0.001, 0))
                .withPrices(Map.of("scripted", new EngineSettings.ModelPrice(1.0, 1.0)));
        AtomicReference<Budgets.Overrides> team = new AtomicReference<>();
        EngineHarness.Events events = new EngineHarness.Events();
        AgentContext ctx = lead().withBudgets(team::get);
        model.load(LOOP_300);
        AgentSession s = open(settings, events, ctx, null);

        TurnResult first = s.run("work");

        assertThat(first.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(first.text()).isEqualTo("Stopped: agent t1/lead cost $0.0012, its budget is $0.001.");
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).singleElement()
                .satisfies(w -> assertThat(w.path("budget").asText()).isEqualTo("costPerAgentUsd"));

        // the next prompt stops at once: the agent's life is over budget
        model.reset();
        model.load(LOOP_300);
        TurnResult second = s.run("more");
        assertThat(second.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(model.requests()).isEmpty();
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).hasSize(1); // no second warning for the same crossing

        // the team raises the agent's budget to $0.002 (the override counts from the next step)
        team.set(new Budgets.Overrides(null, null, null, null, 0.002, null));
        model.reset();
        model.load("""
                {"rules":[{"reply":{"text":"done","usage":{"prompt_tokens":250,"completion_tokens":50}}}]}""");
        TurnResult third = s.run("finish");
        assertThat(third.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(third.text()).isEqualTo("done");
        // 0.0012 → 0.0015: below the new 80 % mark (0.0016), no warning
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).hasSize(1);

        // a budget of 0 in the override is unlimited, whatever the engine says
        team.set(new Budgets.Overrides(null, null, null, null, 0.0, null));
        model.reset();
        model.load("""
                {"rules":[{"reply":{"text":"again","usage":{"prompt_tokens":2500,"completion_tokens":500}}}]}""");
        assertThat(s.run("again").reason()).isEqualTo(StopReason.COMPLETED);
    }

    @Test
    void aTeamBudgetCountsTheHostsTeamUsageAndNamesTheTeam() {
        EngineHarness.Events events = new EngineHarness.Events();
        AtomicReference<AgentSession> self = new AtomicReference<>();
        // the host's team usage: 700 tokens of other agents plus this agent's own
        AgentContext ctx = lead()
                .withTeamUsage(() -> new Usage(700 + self.get().usage().inputTokens(), self.get().usage().outputTokens(), 0, 0))
                .withBudgets(() -> new Budgets.Overrides(null, null, 1000L, null, null, null));
        model.load("""
                {"rules":[{"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo x"}}],"usage":{"prompt_tokens":100,"completion_tokens":50}}}]}""");
        AgentSession s = open(EngineSettings.defaults(), events, ctx, null);
        self.set(s);

        TurnResult r = s.run("work");

        // 700 + 150 = 850 crosses 800; 700 + 300 = 1000 reached
        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(r.text()).isEqualTo("Stopped: team t1 used 1000 tokens, its budget is 1000.");
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).singleElement().satisfies(w -> {
            assertThat(w.path("scope").asText()).isEqualTo("team");
            assertThat(w.path("used").asLong()).isEqualTo(850);
        });
        assertThat(events.dataOf(EventType.BUDGET_EXCEEDED)).singleElement()
                .satisfies(e -> assertThat(e.path("budget").asText()).isEqualTo("tokensPerTeam"));
    }

    @Test
    void aTeamDayBudgetCountsTheHostsUsageOfTheDayWarnsOnceAndStopsNamingTheReset() {
        EngineHarness.Events events = new EngineHarness.Events();
        AtomicReference<AgentSession> self = new AtomicReference<>();
        AtomicInteger dayReads = new AtomicInteger();
        AtomicReference<Budgets.Overrides> team = new AtomicReference<>(Budgets.Overrides.NONE);
        // the host's usage of the team's day: 700 tokens of other agents today plus this agent's own
        AgentContext ctx = lead()
                .withTeamUsageToday(() -> {
                    dayReads.incrementAndGet();
                    return new Usage(700 + self.get().usage().inputTokens(), self.get().usage().outputTokens(), 0, 0);
                })
                .withBudgets(team::get);
        model.load("""
                {"rules":[{"match":{"lastMessage":"^finish"},"reply":{"text":"done","usage":{"prompt_tokens":100,"completion_tokens":50}}},
                 {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo x"}}],"usage":{"prompt_tokens":100,"completion_tokens":50}}}]}""");
        // the built-in daily budget switched off (0), so only the team's own counts
        AgentSession s = open(EngineSettings.defaults().withBudgets(Budgets.unlimited()), events, ctx, null);
        self.set(s);

        // no day budget: the day's usage is never read (the host's query is spared)
        assertThat(s.run("finish").reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(dayReads).hasValue(0);

        team.set(new Budgets.Overrides(null, null, null, null, null, null, 1300L, null));
        TurnResult r = s.run("work");

        // 850 + 150 = 1000 and 1150 (crosses 1040: one warning), 1300 reached
        assertThat(r.reason()).isEqualTo(StopReason.BUDGET_EXCEEDED);
        assertThat(r.text()).isEqualTo(
                "Stopped: team t1 used 1300 tokens today (UTC), its daily budget is 1300; it resets at 00:00 UTC.");
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).singleElement().satisfies(w -> {
            assertThat(w.path("budget").asText()).isEqualTo("tokensPerTeamPerDay");
            assertThat(w.path("scope").asText()).isEqualTo("team-day");
            assertThat(w.path("used").asLong()).isEqualTo(1150);
            assertThat(w.path("percent").asLong()).isEqualTo(88);
        });
        assertThat(events.dataOf(EventType.BUDGET_EXCEEDED)).singleElement().satisfies(e -> {
            assertThat(e.path("budget").asText()).isEqualTo("tokensPerTeamPerDay");
            assertThat(e.path("scope").asText()).isEqualTo("team-day");
            assertThat(e.path("used").asLong()).isEqualTo(1300);
            assertThat(e.path("limit").asLong()).isEqualTo(1300);
        });
        assertThat(dayReads.get()).isPositive();

        // raising the day's budget lets the next prompt run
        team.set(new Budgets.Overrides(null, null, null, null, null, null, 5000L, null));
        assertThat(s.run("finish").reason()).isEqualTo(StopReason.COMPLETED);
    }

    @Test
    void aLaggingDayLedgerDoesNotRepeatTheDaysWarning() {
        // the host's ledger never sees this agent's calls (all of them still on their way): each call crosses 80 %
        EngineHarness.Events events = new EngineHarness.Events();
        AgentContext ctx = lead().withTeamUsageToday(() -> new Usage(790, 0, 0, 0))
                .withBudgets(() -> new Budgets.Overrides(null, null, null, null, null, null, 1000L, null));
        model.load(LOOP_300);
        AgentSession s = open(EngineSettings.defaults().withMaxModelCallsPerTurn(4), events, ctx, null);

        TurnResult r = s.run("work");

        assertThat(r.reason()).isEqualTo(StopReason.MAX_MODEL_CALLS);
        assertThat(events.dataOf(EventType.BUDGET_WARNING)).singleElement()
                .satisfies(w -> assertThat(w.path("used").asLong()).isEqualTo(1090));
    }

    @Test
    void theSameCallWithTheSameArgumentsAndTheSameResultEndsTheTurnNamingTheCall() {
        model.load("""
                {"rules":[{"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo same"}}]}}]}""");
        EngineHarness.Events events = new EngineHarness.Events();
        AgentSession s = open(EngineSettings.defaults(), events, lead(), null);

        TurnResult r = s.run("loop");

        assertThat(r.reason()).isEqualTo(StopReason.STUCK);
        assertThat(r.modelCalls()).isEqualTo(5);
        assertThat(r.text()).isEqualTo(
                "Stopped: the agent made the same tool call bash {\"command\":\"echo same\"} with the same result 5 times in a row.");
        assertThat(EngineHarness.lastContent(model.requests().get(3)))
                .startsWith("<notice>You made the same tool call with the same arguments 3 times in a row and got the same result");
        assertThat(events.dataOf(EventType.TURN_COMPLETED).get(0).path("reason").asText()).isEqualTo("stuck");
        assertThat(events.dataOf(EventType.TURN_COMPLETED).get(0).path("text").asText()).contains("echo same");
    }

    @Test
    void theSameCallWhoseResultChangesIsProgressNotALoop() {
        // each call appends a line and counts them: same call, same arguments, a new result every time
        model.load("""
                {"rules":[{"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo x >> n.txt; wc -l < n.txt"}}]}}]}""");
        AgentSession s = open(EngineSettings.defaults().withMaxModelCallsPerTurn(8), new EngineHarness.Events(), lead(),
                null);

        TurnResult r = s.run("poll");

        assertThat(r.reason()).isEqualTo(StopReason.MAX_MODEL_CALLS);
        assertThat(model.requests()).hasSize(8);
        assertThat(model.requests()).noneSatisfy(q -> assertThat(EngineHarness.lastContent(q)).contains("same tool call"));
    }

    @Test
    void theRepetitionsThatEndATurnAreConfigurable() {
        model.load("""
                {"rules":[{"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo same"}}]}}]}""");
        EngineSettings d = EngineSettings.defaults();
        EngineSettings two = new EngineSettings(d.maxModelCallsPerTurn(), d.subagentMaxModelCalls(),
                d.maxStopContinuations(), d.todoReminderRounds(), 2, 2, d.maxOutputTokens(), d.model(),
                Duration.ofMinutes(10), 0, 0, Map.of(), d.previewChars(), d.recovery(), d.compaction(), d.budgets());
        TurnResult r = open(two, new EngineHarness.Events(), lead(), null).run("loop");

        assertThat(r.reason()).isEqualTo(StopReason.STUCK);
        assertThat(r.modelCalls()).isEqualTo(2);
        assertThat(r.text()).contains("with the same result 2 times in a row");
    }

    @Test
    void theStuckCountersSurviveASaveAndRestore() {
        StuckGuard.State s = StuckGuard.observe(StuckGuard.State.EMPTY, "bash {}", null, "out");
        s = StuckGuard.observe(s, "bash {}", null, "out");
        AgentState saved = new AgentState(AgentState.VERSION, List.of(), List.of(), 0, List.of(), Usage.ZERO,
                new AgentState.TurnProgress("t", "user", false, 2, 0, Usage.ZERO, s));
        StuckGuard.State back = AgentState.fromJson(saved.toJson()).turn().stuck();
        assertThat(back).isEqualTo(s);
        assertThat(StuckGuard.observe(back, "bash {}", null, "out").sameCall()).isEqualTo(3);
        assertThat(StuckGuard.observe(back, "bash {}", null, "other").sameCall()).isEqualTo(1);
    }
}

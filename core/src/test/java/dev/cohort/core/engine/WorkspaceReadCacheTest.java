package dev.cohort.core.engine;

import static dev.cohort.core.engine.EngineHarness.system;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.hooks.HookSettings;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceReadCache;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.model.ScriptedModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Predicate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-team cache of what a turn start reads from the workspace (skills, the hook settings file), through real
 * engine sessions over a local workspace: read once for the agents of a team, read again after a change made through
 * it, after its ttl (a moved clock, never a wait), for a skill asked for by name, and never kept when a read failed.
 */
class WorkspaceReadCacheTest {
    static final Duration TTL = Duration.ofMinutes(1);
    /** The tools the runner's catalogue declares read-only. */
    static final Predicate<String> READ_ONLY = WorkspaceToolsFixture.catalogue()::changesNothing;
    static ScriptedModelServer model;
    @TempDir
    Path dir;
    LocalWorkspace ws;
    MovableClock clock;
    WorkspaceReadCache cache;
    AgentEngine engine;

    @BeforeAll
    static void start() {
        model = ScriptedModelServer.start(0);
    }

    @AfterAll
    static void stop() {
        model.close();
    }

    @BeforeEach
    void reset() throws Exception {
        model.reset();
        ws = new LocalWorkspace(dir);
        clock = new MovableClock();
        cache = new WorkspaceReadCache(ws, READ_ONLY, TTL, clock);
        engine = EngineHarness.engine(EngineHarness.modelClient(model), new EngineHarness.Events(), List.of())
                .approvals(new EngineHarness.Approvals(true)).workspaceHookSettings(HookSettings.WORKSPACE_FILE).build();
        skill("review", "v1");
    }

    private AgentSession teammate(String name) {
        return engine.open(AgentContext.of("t", name, AgentRole.TEAMMATE, cache), null);
    }

    private void skill(String name, String description) throws Exception {
        Files.createDirectories(dir.resolve("skills/" + name));
        Files.writeString(dir.resolve("skills/" + name + "/SKILL.md"),
                "---\nname: " + name + "\ndescription: " + description + "\n---\nbody of " + name + "\n");
    }

    /** The turn-start reads the workspace answered so far (glob of skills, read of a skill, read of the settings). */
    private long turnStartReads() {
        return ws.executed.stream().filter(e -> e.startsWith("glob:skills-") || e.startsWith("read_file:skills-")
                || e.startsWith("read_file:hook-settings-")).count();
    }

    private String lastSystem() {
        List<RecordedRequest> r = model.requests();
        return system(r.get(r.size() - 1));
    }

    @Test
    void theTeammatesOfOneTeamReadSkillsAndHookSettingsOnceUntilSomethingChanges() {
        model.load("""
                {"rules":[{"reply":{"text":"ok"}}]}""");
        teammate("alice").run("hi");
        long first = turnStartReads();
        assertThat(first).isEqualTo(3); // the glob, the one skill, the settings file (not found)

        teammate("bob").run("hi");
        teammate("alice").run("again");

        assertThat(turnStartReads()).isEqualTo(first);
        assertThat(lastSystem()).contains("- review: v1");
        assertThat(cache.reads()).isEqualTo(2); // skills and hook settings, once each
    }

    @Test
    void aSkillWrittenByATeammatesToolCallIsInTheNextTurnOfEveryTeammateOfTheTeam() {
        model.load("""
                {"rules":[
                 {"match":{"agent":"t/alice","lastMessage":"write it"},"reply":{"toolCalls":[{"name":"write_file",
                   "arguments":{"path":"skills/deploy/SKILL.md","content":"---\\nname: deploy\\ndescription: ship it\\n---\\nsteps\\n"}}]}},
                 {"reply":{"text":"ok"}}]}""");
        teammate("bob").run("hi");
        assertThat(lastSystem()).doesNotContain("deploy");

        teammate("alice").run("write it");
        teammate("bob").run("hi again");

        assertThat(lastSystem()).contains("- deploy: ship it").contains("- review: v1");
    }

    @Test
    void aHookAddedThroughATeammatesToolCallGuardsTheNextTurnOfAnotherTeammate() throws Exception {
        model.load("""
                {"rules":[
                 {"match":{"agent":"t/alice","lastMessage":"freeze"},"reply":{"toolCalls":[{"name":"write_file",
                   "arguments":{"path":".cohort/settings.json","content":"{\\"hooks\\": {\\"PreToolUse\\": [{\\"matcher\\": \\"write_.*\\", \\"hooks\\": [{\\"type\\": \\"command\\", \\"command\\": \\"echo frozen >&2; exit 2\\", \\"timeout\\": 5}]}]}}"}}]}},
                 {"match":{"agent":"t/bob","lastRole":"user"},"reply":{"toolCalls":[{"name":"write_file",
                   "arguments":{"path":"x.txt","content":"x"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"result: {{lastMessage}}"}},
                 {"reply":{"text":"ok"}}]}""");
        teammate("bob").run("write x");
        assertThat(dir.resolve("x.txt")).exists(); // no hooks yet (the settings file was kept as absent)
        Files.delete(dir.resolve("x.txt"));

        teammate("alice").run("freeze");
        teammate("bob").run("write x again");

        List<RecordedRequest> r = model.requests();
        assertThat(toolResults(r.get(r.size() - 1))).singleElement().asString().contains("frozen");
        assertThat(dir.resolve("x.txt")).doesNotExist();
    }

    @Test
    void aChangeMadeOutsideTheCacheIsSeenOnceItsTtlHasPassedAndNotBefore() throws Exception {
        model.load("""
                {"rules":[{"reply":{"text":"ok"}}]}""");
        teammate("alice").run("hi");
        skill("review", "v2");

        teammate("alice").run("kept");
        assertThat(lastSystem()).contains("- review: v1");

        clock.advance(TTL);
        teammate("alice").run("expired");
        assertThat(lastSystem()).contains("- review: v2");
    }

    @Test
    void aSkillAskedForByNameThatTheKeptListLacksIsLookedForInAFreshRead() throws Exception {
        model.load("""
                {"rules":[
                 {"match":{"lastMessage":"load late"},"reply":{"toolCalls":[{"name":"load_skill","arguments":{"name":"late"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"result: {{lastMessage}}"}},
                 {"reply":{"text":"ok"}}]}""");
        teammate("alice").run("hi");
        skill("late", "written elsewhere");

        teammate("alice").run("load late");

        List<RecordedRequest> r = model.requests();
        assertThat(toolResults(r.get(r.size() - 1))).containsExactly("<skill name=\"late\" source=\"workspace file"
                + " skills/late/SKILL.md\">\n" + LoadSkillTool.WORKSPACE_NOTE + "\nbody of late\n</skill>");
        teammate("bob").run("hi");
        assertThat(lastSystem()).contains("- late: written elsewhere"); // the fresh read is kept for the team
    }

    @Test
    void aFailedReadIsUsedByItsTurnOnlyAndReadAgainByTheNext() {
        AtomicInteger failures = new AtomicInteger(1);
        WorkspaceToolExecutor flaky = (tool, callId, args, target) -> {
            if (callId.startsWith("skills-glob-") && failures.getAndDecrement() > 0) {
                return ToolOutcome.failure("tool runner answered 503");
            }
            return ws.execute(tool, callId, args, target);
        };
        cache = new WorkspaceReadCache(flaky, READ_ONLY, TTL, clock);
        model.load("""
                {"rules":[{"reply":{"text":"ok"}}]}""");

        teammate("alice").run("hi");
        assertThat(lastSystem()).doesNotContain("review");
        teammate("alice").run("again");

        assertThat(lastSystem()).contains("- review: v1");
    }

    @Test
    void pastHalfItsTtlAKeptValueIsStillServedAndReadAgainInTheBackground() {
        WorkspaceToolExecutor.Target t = new WorkspaceToolExecutor.Target("t", "alice", null);
        AtomicInteger version = new AtomicInteger(1);
        assertThat(cache.get("x", t, () -> WorkspaceReadCache.Read.kept(version.get()))).isEqualTo(1);
        version.set(2);

        clock.advance(TTL.dividedBy(2));
        assertThat(cache.get("x", t, () -> WorkspaceReadCache.Read.kept(version.get()))).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30)).until(() -> cache.get("x", t,
                () -> WorkspaceReadCache.Read.kept(version.get())).equals(2));
        assertThat(cache.reads()).isEqualTo(2);
    }

    @Test
    void aValueReadWhileAChangeOfTheTeamRanIsNotServedAfterTheChange() throws Exception {
        WorkspaceToolExecutor.Target t = new WorkspaceToolExecutor.Target("t", "alice", null);
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch changed = new CountDownLatch(1);
        CompletableFuture<Integer> slow = CompletableFuture.supplyAsync(() -> cache.get("x", t, () -> {
            reading.countDown();
            try {
                changed.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return WorkspaceReadCache.Read.kept(1);
        }));
        assertThat(reading.await(30, TimeUnit.SECONDS)).isTrue();
        ObjectNode args = Json.MAPPER.createObjectNode().put("path", "y.txt").put("content", "y");
        cache.execute("write_file", "w1", args, t);
        changed.countDown();
        assertThat(slow.get(30, TimeUnit.SECONDS)).isEqualTo(1); // its own turn uses what it read

        assertThat(cache.get("x", t, () -> WorkspaceReadCache.Read.kept(2))).isEqualTo(2);
    }

    @Test
    void readsDoNotDropTheTeamsValuesAndOtherTeamsKeepTheirs() {
        WorkspaceToolExecutor.Target t = new WorkspaceToolExecutor.Target("t", "alice", null);
        WorkspaceToolExecutor.Target other = new WorkspaceToolExecutor.Target("u", "carol", null);
        cache.get("x", t, () -> WorkspaceReadCache.Read.kept(1));
        cache.get("x", other, () -> WorkspaceReadCache.Read.kept(1));

        cache.execute("read_file", "r1", Json.MAPPER.createObjectNode().put("path", "skills/review/SKILL.md"), t);
        assertThat(cache.get("x", t, () -> WorkspaceReadCache.Read.kept(2))).isEqualTo(1);

        cache.execute("bash", "b1", Json.MAPPER.createObjectNode().put("command", "true"), t);
        assertThat(cache.get("x", t, () -> WorkspaceReadCache.Read.kept(2))).isEqualTo(2);
        assertThat(cache.get("x", other, () -> WorkspaceReadCache.Read.kept(2))).isEqualTo(1);
    }

    @Test
    void aCacheWithoutAPositiveTtlIsRefusedNamingIt() {
        assertThatThrownBy(() -> new WorkspaceReadCache(ws, READ_ONLY, Duration.ZERO, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the workspace read cache's ttl must be positive, was PT0S");
    }

    /** A clock the test moves. */
    static final class MovableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}

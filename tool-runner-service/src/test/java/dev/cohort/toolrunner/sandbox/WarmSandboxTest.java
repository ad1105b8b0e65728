package dev.cohort.toolrunner.sandbox;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Topics;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.devstack.quarkus.DevstackTestResource;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.OutputCapture;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.Processes;
import dev.cohort.toolrunner.TempWorkspaceResource;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.workspace.Workspaces;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Warm sandboxes ({@link WarmSandboxes}) with the runner's own sandbox in force (bubblewrap here, as
 * {@code SandboxedBashTest} checks): real processes, real calls. Each call is served by a sandbox of its own, so
 * nothing of a previous call reaches the next; the stale, dead and misbehaving cases fall back to a cold start without
 * ever running a command twice.
 */
@QuarkusTest
@QuarkusTestResource(value = DevstackTestResource.class, initArgs = @ResourceArg(name = "topics", value = Topics.ALL_CSV))
@QuarkusTestResource(TempWorkspaceResource.class)
class WarmSandboxTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    WarmSandboxes warm;
    @Inject
    TeamSandboxes teams;

    /** Warm sandboxes serve the per-call sandbox: this class runs with {@code sandbox-scope=call}. */
    @BeforeEach
    void perCallSandboxes() {
        teams.scope(ToolRunnerConfig.SandboxScope.CALL);
    }

    @AfterEach
    void asConfigured() {
        teams.scope(null);
    }
    @Inject
    CommandLauncher launcher;
    @Inject
    Workspaces workspaces;
    @Inject
    CommandSandbox sandbox;
    @Inject
    ToolRunnerConfig config;

    /** Waits until the pool of {@code team}'s workspace is full of ready warm sandboxes (no start pending). */
    private WarmSandboxes.Key awaitWarm(String team) {
        WarmSandboxes.Key key = key(team, "");
        await().atMost(WAIT).until(() -> warm.keys().contains(key)
                && warm.readyCount(key) == config.warmSandbox().size());
        return key;
    }

    private WarmSandboxes.Key key(String team, String cwd) {
        ToolContext ctx = ctx(team, cwd);
        return launcher.warmKey(ctx, workspaces.home(team));
    }

    private ToolContext ctx(String team, String cwd) {
        Workspaces.Location loc = workspaces.locate(team, cwd);
        return new ToolContext(team, "lead", "c_" + UUID.randomUUID(), loc.workspace(), loc.root(), loc.cwd(),
                loc.worktree());
    }

    @Test
    void aWarmSandboxRunsTheCallInTheHostChosenCwdWithItsEnvironmentAndNothingOfThePreviousCall() throws Exception {
        String team = newTeam();
        String marker = "warm-leftover-" + UUID.randomUUID();
        ToolCallResult first = bash(team, "export LEAKED=from-call-1; echo one > /tmp/call-1; mkdir -p sub;"
                + " (exec -a " + marker + " sleep 300) & echo started");
        assertThat(first.output()).isEqualTo("started\n");
        awaitWarm(team);
        long pooled = warm.pooledCount();

        ToolCallResult second = Calls.call("bash", team, "lead", "sub", args("command",
                "pwd; echo \"LEAKED=${LEAKED-unset}\"; ls /tmp/call-1 2>/dev/null || echo no-tmp-file;"
                        + " echo \"$GIT_AUTHOR_NAME\"; read -r x || echo stdin-at-eof"));

        assertThat(warm.pooledCount()).as("served by the warm sandbox").isEqualTo(pooled + 1);
        assertThat(second.output()).isEqualTo(Calls.workspace(team).toRealPath().resolve("sub") + "\n"
                + "LEAKED=unset\nno-tmp-file\ncohort " + team + "/lead\nstdin-at-eof\n");
        assertThat(second.exitCode()).isZero();
        await().atMost(WAIT).until(() -> !Processes.anyWith(marker)); // the first call's leftover died with it
    }

    @Test
    void theWarmStartGivesTheCommandExactlyWhatAColdStartGives() throws Exception {
        String team = newTeam();
        bash(team, "mkdir -p a/b");
        awaitWarm(team);
        // environment, cwd, $0, shell level, processes visible, capabilities, mounts, user: compared byte for byte
        // processes visible: counted by the shell's own glob, not `ls /proc | grep`, whose count depended on whether
        // grep was forked yet when ls read /proc (a race that failed this test once)
        String probe = "env | sort; pwd; echo \"$0 $SHLVL $$\"; p=(/proc/[0-9]*); echo ${#p[@]}; grep ^Cap /proc/self/status;"
                + " cat /proc/self/mountinfo | awk '{print $5, $6}' | sort; id; umask; ulimit -n; ls -A /tmp";
        ToolContext ctx = ctx(team, "a/b");
        ProcessRunner.Spec warmSpec = launcher.warmSpec(ctx, probe, Duration.ofSeconds(60));
        ProcessRunner.Spec coldSpec = launcher.spec(ctx, probe, Duration.ofSeconds(60));
        long pooled = warm.pooledCount();
        OutputCapture w = new OutputCapture(1_000_000, Files.createTempFile("warm", ".out"), false);
        ProcessRunner.Outcome wo = ProcessRunner.run(warmSpec, w, null);
        assertThat(warm.pooledCount()).isEqualTo(pooled + 1);
        OutputCapture c = new OutputCapture(1_000_000, Files.createTempFile("cold", ".out"), false);
        ProcessRunner.Outcome co = ProcessRunner.run(coldSpec, c, null);

        assertThat(wo.exitCode()).isZero();
        assertThat(co.exitCode()).isZero();
        assertThat(w.text("ref")).contains("PATH=", "HOME=" + workspaces.home(team), "/a/b\n")
                .isEqualTo(c.text("ref"));
    }

    @Test
    void anotherTeamsWarmSandboxCannotReadThisTeamsHomeNorWriteItsWorkspace() throws Exception {
        String mine = newTeam();
        String other = newTeam();
        bash(mine, "echo secret > \"$HOME/mine.txt\"; echo content > file.txt");
        bash(other, "true");
        awaitWarm(mine);
        awaitWarm(other);
        Path myHome = workspaces.home(mine);
        Path myWorkspace = Calls.workspace(mine).toRealPath();
        long pooled = warm.pooledCount();

        ToolCallResult r = bash(other, "cat " + myHome.resolve("mine.txt") + " 2>&1 || echo NO-HOME;"
                + " echo x > " + myWorkspace.resolve("file.txt") + " 2>&1 || echo NO-WRITE; cat "
                + myWorkspace.resolve("file.txt"));

        assertThat(warm.pooledCount()).isEqualTo(pooled + 1);
        // (here the workspaces lie under /tmp, which is private in a sandbox: the other one is not even visible)
        assertThat(r.output()).contains("NO-HOME", "NO-WRITE").doesNotContain("secret");
        assertThat(Files.readString(myWorkspace.resolve("file.txt"))).isEqualTo("content\n");
    }

    @Test
    void aTimeoutInAWarmSandboxKillsTheWholeTree() {
        String team = newTeam();
        bash(team, "true");
        awaitWarm(team);
        String marker = "warm-timeout-" + UUID.randomUUID();
        long pooled = warm.pooledCount();

        ToolCallResult r = Calls.call("bash", team, args("command",
                "(exec -a " + marker + "-child sleep 300) & exec -a " + marker + " sleep 300", "timeout_ms", 1500));

        assertThat(warm.pooledCount()).isEqualTo(pooled + 1);
        assertThat(r.error()).contains("timed out", "(rule: timeout)");
        await().atMost(WAIT).until(() -> !Processes.anyWith(marker));
    }

    @Test
    void aDeadWarmSandboxIsReplacedAndTheCallRunsOnceCold() throws Exception {
        String team = newTeam();
        bash(team, "true");
        WarmSandboxes.Key key = awaitWarm(team);
        List<Process> ready = warm.processes(key);
        ready.forEach(p -> ProcessRunner.killGroup(p.pid()));
        await().atMost(WAIT).until(() -> ready.stream().noneMatch(Process::isAlive));
        long unusable = warm.unusableCount();

        ToolCallResult r = bash(team, "echo ran >> count.txt; cat count.txt");

        assertThat(r.output()).isEqualTo("ran\n");
        assertThat(r.exitCode()).isZero();
        assertThat(warm.unusableCount()).as("the dead ones were not used").isEqualTo(unusable + ready.size());
        awaitWarm(team); // and a replacement is ready again
        assertThat(warm.processes(key)).noneMatch(ready::contains);
    }

    @Test
    void aWarmSandboxWhoseWorkspaceWasReplacedIsNotUsed() throws Exception {
        String team = newTeam();
        bash(team, "echo old > old.txt");
        awaitWarm(team);
        Path ws = Calls.workspace(team);
        Files.move(ws, ws.resolveSibling(ws.getFileName() + ".moved"));
        Files.createDirectories(ws);
        long unusable = warm.unusableCount();

        ToolCallResult r = bash(team, "ls -A | grep -v -e '^.git$' -e '^.cohort$' || echo EMPTY");

        assertThat(r.output()).isEqualTo("EMPTY\n"); // the new directory, not the one the warm sandbox bound
        assertThat(warm.unusableCount()).isEqualTo(unusable + config.warmSandbox().size());
    }

    @Test
    void aStubThatAcknowledgesIsNeverRetriedAndOneThatDiesBeforeItsAcknowledgementRunsTheCommandOnceCold()
            throws Exception {
        String team = newTeam();
        bash(team, "true");
        ToolContext ctx = ctx(team, "");
        Path count = ctx.cwd().resolve("runs.txt");
        String command = "echo ran >> runs.txt";
        ProcessRunner.Spec cold = launcher.spec(ctx, command, Duration.ofSeconds(60));

        // acknowledges, then ends without running the command: the outcome is its exit, nothing runs again
        Process acks = new ProcessBuilder("setsid", "bash", "-c", "printf '\\006'; cat >/dev/null; printf '\\002'; exit 3").start();
        ProcessRunner.Spec withAck = new ProcessRunner.Spec(cold.shell(), command, cold.cwd(), cold.env(), cold.timeout(),
                cold.sandboxPrefix(), () -> WarmSandboxes.adopt(acks));
        ProcessRunner.Outcome o = ProcessRunner.run(withAck,
                new OutputCapture(1000, Files.createTempFile("ack", ".out"), false), null);
        assertThat(o.exitCode()).isEqualTo(3);
        assertThat(count).doesNotExist();

        // ends after reading its header but before acknowledging: the command provably did not start, so cold once
        Process dies = new ProcessBuilder("setsid", "bash", "-c", "printf '\\006'; cat >/dev/null; exit 0").start();
        ProcessRunner.Spec noAck = new ProcessRunner.Spec(cold.shell(), command, cold.cwd(), cold.env(), cold.timeout(),
                cold.sandboxPrefix(), () -> WarmSandboxes.adopt(dies));
        o = ProcessRunner.run(noAck, new OutputCapture(1000, Files.createTempFile("noack", ".out"), false), null);
        assertThat(o.exitCode()).isZero();
        assertThat(Files.readString(count)).isEqualTo("ran\n");
    }

    @Test
    void aCallTakesAReadySandboxOverAnOlderOneStillStartingAndWaitsOnlyWhenNoneIsReady() throws Exception {
        // a pool of ready sandboxes: taking one does not wait
        String team = newTeam();
        bash(team, "true");
        WarmSandboxes.Key key = awaitWarm(team);
        long waited = warm.waitedCount();
        WarmSandboxes.Warm ready = warm.take(key);
        assertThat(ready).isNotNull();
        ready.kill();
        assertThat(warm.waitedCount()).isEqualTo(waited);

        // its oldest sandbox is still starting, younger ones are ready: the call takes a ready one and does not wait
        awaitWarm(team);
        Process gated = new ProcessBuilder("setsid", "bash", "-c", "read -r go; printf '\\006'; sleep 60").start();
        WarmSandboxes.Warm starting = warm.offerFirst(key, gated);
        WarmSandboxes.Warm taken = warm.take(key);
        assertThat(taken).isNotNull().isNotSameAs(starting);
        taken.kill();
        assertThat(warm.waitedCount()).isEqualTo(waited);
        assertThat(warm.processes(key)).as("the one still starting stays pooled").contains(gated);

        // a pool whose sandboxes are all still starting (its own starts never get ready): the call waits, is counted,
        // and takes the first to get ready, here the younger of two
        Path dir = Files.createTempDirectory("warm-none-ready");
        WarmSandboxes.Key never =
                new WarmSandboxes.Key(newTeam(), List.of("sh", "-c", "exec sleep 600"), dir, List.of());
        Process older = new ProcessBuilder("setsid", "bash", "-c", "read -r go; printf '\\006'; sleep 60").start();
        Process younger = new ProcessBuilder("setsid", "bash", "-c", "read -r go; printf '\\006'; sleep 60").start();
        warm.offerFirst(never, younger);
        warm.offerFirst(never, older);
        CompletableFuture<WarmSandboxes.Warm> waiting =
                CompletableFuture.supplyAsync(() -> warm.take(never));
        await().atMost(WAIT).until(() -> warm.waitedCount() == waited + 1);
        assertThat(waiting).as("still waiting for a ready byte").isNotDone();

        younger.getOutputStream().write('\n');
        younger.getOutputStream().flush();
        WarmSandboxes.Warm first = waiting.get(60, TimeUnit.SECONDS);
        assertThat(first.process()).isSameAs(younger);
        assertThat(warm.waitedCount()).isEqualTo(waited + 1);
        first.kill();
        List<Process> left = warm.processes(never);
        assertThat(left).contains(older);
        warm.evictIdle(System.nanoTime() + Duration.ofDays(1).toNanos()); // kills what is left, the gated ones too
        await().atMost(WAIT).until(() -> !younger.isAlive() && !older.isAlive() && !gated.isAlive()
                && left.stream().noneMatch(Process::isAlive));
    }

    @Test
    void idlePoolsAreEvictedAndTheLeastRecentlyUsedGoesBeyondTheCap() throws Exception {
        warm.evictIdle(System.nanoTime() + Duration.ofDays(1).toNanos()); // a clean slate: only this test's pools
        String a = newTeam();
        String b = newTeam();
        bash(a, "true");
        WarmSandboxes.Key ka = awaitWarm(a);
        bash(b, "true");
        WarmSandboxes.Key kb = awaitWarm(b);
        List<Process> ofA = warm.processes(ka);

        assertThat(warm.evictOver(1)).isEqualTo(1); // a is the least recently used
        assertThat(warm.keys()).doesNotContain(ka).contains(kb);
        await().atMost(WAIT).until(() -> ofA.stream().noneMatch(Process::isAlive));

        List<Process> ofB = warm.processes(kb);
        assertThat(warm.evictIdle(System.nanoTime() - 1)).as("nothing is idle yet").isZero();
        assertThat(warm.evictIdle(System.nanoTime() + Duration.ofDays(1).toNanos())).isGreaterThanOrEqualTo(1);
        assertThat(warm.keys()).doesNotContain(kb);
        await().atMost(WAIT).until(() -> ofB.stream().noneMatch(Process::isAlive));

        // the next call of an evicted team still runs, and warms its pool again
        assertThat(bash(b, "echo back").output()).isEqualTo("back\n");
        awaitWarm(b);
    }
}

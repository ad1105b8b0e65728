package dev.cohort.toolrunner.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cohort.devstack.OptionalProgram;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.OutputCapture;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.sandbox.CommandSandbox.Level;
import dev.cohort.toolrunner.sandbox.Sandbox.Kind;
import dev.cohort.toolrunner.sandbox.Sandbox.Mount;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The sandbox from inside real {@code bash} calls, for both kinds (bubblewrap where {@code bwrap} works — CI installs
 * it — and the {@code unshare} fallback), each claim checked against {@code none} so that the check itself is shown
 * to detect what it looks for. Plus the pure parts: the mount plan and the choice of the level at start-up.
 *
 * <p>The fake user home lies in {@code /var/tmp}, not in {@code /tmp}, so that hiding it is proven by the hiding
 * itself and not by the private {@code /tmp}.
 */
class SandboxTest {
    private Path base;
    private Path userHome;
    private Path workspace;
    private Path state;
    private Path teamHome;
    private Path innerState;
    private Path outside;

    @BeforeEach
    void layOut() throws IOException {
        Path varTmp = Path.of("/var/tmp");
        Assumptions.assumeTrue(Files.isDirectory(varTmp) && Files.isWritable(varTmp), "/var/tmp is not writable");
        base = Files.createTempDirectory(varTmp, "cohort-sandbox-test-").toRealPath();
        userHome = Files.createDirectories(base.resolve("home/user"));
        Files.createDirectories(userHome.resolve(".cohort"));
        Files.writeString(userHome.resolve(".cohort/up.json"), "{\"apiToken\":\"api-token-of-the-cli\"}");
        Files.writeString(userHome.resolve(".bash_history"), "user history");
        workspace = Files.createDirectories(userHome.resolve("projects/ws"));
        Files.writeString(workspace.resolve("README"), "workspace file");
        innerState = Files.createDirectories(workspace.resolve(".runner-state"));
        Files.writeString(innerState.resolve("secret.txt"), "state inside the workspace");
        state = Files.createDirectories(base.resolve("state"));
        Files.writeString(state.resolve("secret.txt"), "runner state");
        teamHome = Files.createDirectories(state.resolve("teams/t1/home"));
        outside = Files.createDirectories(base.resolve("outside"));
    }

    @AfterEach
    void cleanUp() throws IOException {
        if (base != null) {
            try (Stream<Path> s = Files.walk(base)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private Sandbox.Layout layout(boolean network) {
        return new Sandbox.Layout(workspace, List.of(userHome, state, innerState), List.of(workspace, teamHome),
                List.of(), network);
    }

    private List<String> prefix(Level level, Sandbox.Layout layout) throws IOException {
        return switch (level) {
            case BUBBLEWRAP -> Sandbox.bubblewrap("bwrap", layout);
            case UNSHARE -> {
                Path mountRoot = Files.createDirectories(state.resolve("sandbox/root"));
                yield Sandbox.unshare(CommandSandbox.onPath("unshare"), CommandSandbox.onPath("setpriv"), mountRoot,
                        CommandSandbox.submounts(Path.of("/proc/self/mountinfo"), layout.hidden(), mountRoot),
                        CommandSandbox.runningAsRoot(), layout);
            }
            case NONE -> List.of();
        };
    }

    private record Ran(String output, ProcessRunner.Outcome outcome) {
    }

    private Ran bash(Level level, Sandbox.Layout layout, String command, Map<String, String> env, Duration timeout)
            throws Exception {
        OutputCapture c = new OutputCapture(100_000, base.resolve("out-" + System.nanoTime()), false);
        ProcessRunner.Outcome o = ProcessRunner.run(new ProcessRunner.Spec("/bin/bash", command, workspace, env, timeout,
                prefix(level, layout)), c, null);
        return new Ran(c.text("r"), o);
    }

    private Ran bash(Level level, String command) throws Exception {
        return bash(level, layout(false), command, env(), Duration.ofSeconds(30));
    }

    private Map<String, String> env() {
        return Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", teamHome.toString(), "LANG", "C.UTF-8",
                "GIT_AUTHOR_NAME", "a", "GIT_AUTHOR_EMAIL", "a@x.invalid", "GIT_COMMITTER_NAME", "a",
                "GIT_COMMITTER_EMAIL", "a@x.invalid");
    }

    /**
     * Skips the test, with one line saying what to install, where {@code level} cannot sandbox on this machine; under
     * {@code COHORT_TEST_REQUIRE_BWRAP=1} / {@code COHORT_TEST_REQUIRE_UNSHARE=1} ({@code .ci/run} sets each when it
     * works there) that is a failure instead.
     */
    private void assumeWorks(Level level) throws Exception {
        if (level == Level.NONE) {
            return;
        }
        OptionalProgram program = level == Level.BUBBLEWRAP ? OptionalProgram.BWRAP : OptionalProgram.UNSHARE;
        List<String> commands = level == Level.BUBBLEWRAP ? List.of("bwrap") : List.of("unshare", "setpriv");
        String path = System.getenv("PATH");
        Optional<String> missing = commands.stream().filter(c -> OptionalProgram.find(c, path).isEmpty()).findFirst()
                .map(c -> c + " is not on PATH");
        if (missing.isEmpty()) {
            Ran r = bash(level, "echo sandbox-works");
            if (r.outcome().exitCode() != 0 || !r.output().equals("sandbox-works\n")) {
                missing = Optional.of(level.id() + " cannot sandbox here: " + r.output());
            }
        }
        program.assume(missing);
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void noOtherProcessIsVisibleSoNoServiceEnvironmentCanBeRead(Level level) throws Exception {
        assumeWorks(level);
        String marker = "cohort-host-process-" + System.nanoTime();
        String secret = "sk-model-key-" + System.nanoTime();
        // the patterns come from a file, so grep's own command line does not match them
        Files.writeString(workspace.resolve("marker.txt"), marker + "\n");
        Files.writeString(workspace.resolve("secret.txt"), secret + "\n");
        // the marker is an argument (Java shows no argv[0]); "; true" keeps bash from exec'ing sleep
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "sleep 300; true", marker);
        pb.environment().put("OPENAI_API_KEY", secret);
        Process host = pb.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> ProcessHandle.allProcesses()
                    .anyMatch(p -> p.info().commandLine().orElse("").contains(marker)));
            String probe = "echo cmdline $(grep -l -a -F -f marker.txt /proc/[0-9]*/cmdline 2>/dev/null | wc -l);"
                    + " echo environ $(grep -l -a -F -f secret.txt /proc/[0-9]*/environ 2>/dev/null | wc -l)";
            assertThat(bash(Level.NONE, probe).output()).as("the probe finds the host process without a sandbox")
                    .isNotEqualTo("cmdline 0\nenviron 0\n").doesNotContain("cmdline 0", "environ 0");
            assertThat(bash(level, probe).output()).isEqualTo("cmdline 0\nenviron 0\n");
            // only the sandbox's own processes: its init (bwrap) or the shell, and the commands of the pipeline
            String count = bash(level, "ls -d /proc/[0-9]* | wc -l").output().strip();
            assertThat(Integer.parseInt(count)).isBetween(1, 4);
        } finally {
            host.destroyForcibly();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void noNetworkReachesAPortTheTestListensOnOnLoopbackUnlessTheTeamIsAllowedNetwork(Level level) throws Exception {
        assumeWorks(level);
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String connect = "(exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + ") 2>/dev/null"
                    + " && echo CONNECTED || echo NO-CONNECTION";
            assertThat(bash(Level.NONE, connect).output()).as("without a sandbox the port is reachable")
                    .isEqualTo("CONNECTED\n");
            assertThat(bash(level, connect).output()).isEqualTo("NO-CONNECTION\n");
            assertThat(bash(level, layout(true), connect, env(), Duration.ofSeconds(30)).output())
                    .as("a team whose policy allows network keeps it").isEqualTo("CONNECTED\n");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void theUsersHomeAndTheStateAreHiddenWhileTheWorkspaceUnderHomeStaysReachable(Level level) throws Exception {
        assumeWorks(level);
        String probe = "cat " + userHome.resolve(".cohort/up.json") + " 2>/dev/null || echo no-up-json;"
                + " cat " + userHome.resolve(".bash_history") + " 2>/dev/null || echo no-history;"
                + " ls -A " + userHome + "; ls -A " + userHome.resolve("projects") + ";"
                + " cat " + state.resolve("secret.txt") + " 2>/dev/null || echo no-state;"
                + " cat " + innerState.resolve("secret.txt") + " 2>/dev/null || echo no-inner-state;"
                + " cat README; echo";
        assertThat(bash(Level.NONE, probe).output()).as("without a sandbox the probe reads everything")
                .contains("api-token-of-the-cli", "user history", "runner state", "state inside the workspace");
        assertThat(bash(level, probe).output()).isEqualTo("""
                no-up-json
                no-history
                projects
                ws
                no-state
                no-inner-state
                workspace file
                """);
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void writesLandOnlyInTheWorkspaceTheTeamHomeAndAPrivateTmp(Level level) throws Exception {
        assumeWorks(level);
        String tmpName = "cohort-sandbox-tmp-" + System.nanoTime();
        String probe = "echo w > in-workspace.txt && echo workspace-ok;"
                + " echo h > \"$HOME/in-home.txt\" && echo home-ok;"
                + " echo t > /tmp/" + tmpName + " && cat /tmp/" + tmpName + ";"
                + " (echo x > " + outside.resolve("x.txt") + ") 2>/dev/null && echo OUTSIDE-WRITABLE;"
                + " (echo x > /usr/cohort-sandbox-probe) 2>/dev/null && echo SYSTEM-WRITABLE;"
                + " (echo x > " + state.resolve("x.txt") + ") 2>/dev/null && echo STATE-WRITABLE;"
                + " (echo x > " + userHome.resolve("x.txt") + ") 2>/dev/null && echo HOME-WRITABLE; echo done";
        Ran r = bash(level, probe);
        assertThat(r.output()).isEqualTo("workspace-ok\nhome-ok\nt\ndone\n");
        assertThat(workspace.resolve("in-workspace.txt")).hasContent("w");
        assertThat(teamHome.resolve("in-home.txt")).hasContent("h");
        assertThat(Path.of("/tmp", tmpName)).as("the sandbox's /tmp is private").doesNotExist();
        assertThat(outside.resolve("x.txt")).doesNotExist();
        assertThat(state.resolve("x.txt")).doesNotExist();
        assertThat(userHome.resolve("x.txt")).doesNotExist();
        assertThat(Path.of("/usr/cohort-sandbox-probe")).doesNotExist();
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void otherTeamsWorkspacesAreHiddenFromTeamDefaultAndTheRootFromTheOtherTeams(Level level) throws Exception {
        assumeWorks(level);
        // a root outside the user's home and outside /tmp: only the hiding itself can keep it from the other teams
        Path root = Files.createDirectories(base.resolve("root"));
        Files.writeString(root.resolve("root.txt"), "root file");
        Path teams = Files.createDirectories(root.resolve("teams"));
        Path other = Files.createDirectories(teams.resolve("other"));
        Files.writeString(other.resolve("secret.txt"), "other team secret");
        Files.writeString(Files.createDirectories(teams.resolve("third")).resolve("secret.txt"), "third team secret");
        Path own = Files.createDirectories(root.resolve("projects/own"));
        Files.writeString(own.resolve("secret.txt"), "own team secret");

        Sandbox.Layout asDefault = new Sandbox.Layout(root, List.of(userHome, state, teams, own),
                List.of(root, teamHome), List.of(), false);
        String probe = "cd " + root + ";"
                + " cat teams/other/secret.txt 2>/dev/null || echo no-other;"
                + " ls -A teams;"
                + " cat projects/own/secret.txt 2>/dev/null || echo no-own;"
                + " (mv projects moved) 2>/dev/null && echo MOVED && cat moved/own/secret.txt;"
                + " (echo x > teams/other/planted) 2>/dev/null && echo PLANTED;"
                + " (mkdir teams/new) 2>/dev/null && echo MADE;"
                + " cat root.txt; echo";
        Path copy = Files.createDirectories(base.resolve("copy"));
        assertThat(bash(Level.NONE, probe.replace(root.toString(), copyOf(root, copy).toString())).output())
                .as("without a sandbox team default reads them").contains("other team secret", "own team secret");
        assertThat(bash(level, asDefault, probe, env(), Duration.ofSeconds(30)).output())
                .isEqualTo("no-other\nno-own\nroot file\n");
        assertThat(other.resolve("planted")).doesNotExist();
        assertThat(teams.resolve("new")).doesNotExist();
        assertThat(root.resolve("projects")).isDirectory();

        Sandbox.Layout asOther = new Sandbox.Layout(other, List.of(userHome, state, root, teams),
                List.of(other, teamHome), List.of(), false);
        String fromOther = "cd " + other + ";"
                + " cat " + root.resolve("root.txt") + " 2>/dev/null || echo no-root;"
                + " cat ../third/secret.txt 2>/dev/null || echo no-third;"
                + " cat ../../projects/own/secret.txt 2>/dev/null || echo no-own;"
                + " (echo x > " + root.resolve("planted") + ") 2>/dev/null && echo PLANTED;"
                + " ls -A ..; ls -A " + root + "; cat secret.txt; echo";
        assertThat(bash(Level.NONE, fromOther).output()).as("without a sandbox the other team reads them")
                .contains("root file", "third team secret", "own team secret");
        Files.delete(root.resolve("planted")); // it wrote, too
        assertThat(bash(level, asOther, fromOther, env(), Duration.ofSeconds(30)).output())
                .isEqualTo("no-root\nno-third\nno-own\nother\nteams\nother team secret\n");
        assertThat(root.resolve("planted")).doesNotExist();
    }

    /** A copy of {@code dir} in {@code into} (the unsandboxed check must not move the original aside). */
    private static Path copyOf(Path dir, Path into) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.toList()) {
                Path to = into.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        return into;
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void rootInsideHasNoCapabilitySoCannotRemountTheSystemWritable(Level level) throws Exception {
        assumeWorks(level);
        String caps = "grep CapEff /proc/self/status | tr -d '\\t'";
        if (CommandSandbox.runningAsRoot()) { // (never the mounts below outside a sandbox: they would change the host)
            assertThat(bash(Level.NONE, caps).output()).as("root outside has capabilities")
                    .isNotEqualTo("CapEff:0000000000000000\n");
        }
        assertThat(bash(level, caps + "; mount -o remount,rw / 2>/dev/null && echo REMOUNTED;"
                + " mount -t tmpfs cohort /usr 2>/dev/null && echo MOUNTED; echo done").output())
                .isEqualTo("CapEff:0000000000000000\ndone\n");
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void gitWorksInside(Level level) throws Exception {
        assumeWorks(level);
        Ran r = bash(level, "git init -q repo && cd repo && echo a > a && git add a && git commit -qm first"
                + " && git log --format=%s && git status --porcelain | wc -l");
        assertThat(r.output()).isEqualTo("first\n0\n");
        assertThat(r.outcome().exitCode()).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Level.class, names = {"BUBBLEWRAP", "UNSHARE"})
    void aCancelledCallLeavesNoProcessOfItsSandboxBehind(Level level) throws Exception {
        assumeWorks(level);
        String marker = "cohort-sandboxed-" + System.nanoTime();
        // two processes carry the marker as an argument: the shell and its background subshell
        String command = "bash -c '(sleep 300; true) & sleep 300; true' " + marker;
        AtomicBoolean seen = new AtomicBoolean();
        OutputCapture c = new OutputCapture(1000, base.resolve("out-cancel"), false);
        ProcessRunner.Outcome o = ProcessRunner.run(new ProcessRunner.Spec("/bin/bash", command, workspace, env(),
                Duration.ofSeconds(60), prefix(level, layout(false))), c, handle -> Thread.ofVirtual().start(() -> {
                    await().atMost(Duration.ofSeconds(30)).until(() -> markerProcesses(marker) >= 2);
                    seen.set(true);
                    handle.cancel();
                }));
        assertThat(seen).as("both processes were running inside before the cancel").isTrue();
        assertThat(o.cancelled()).isTrue();
        await().atMost(Duration.ofSeconds(60)).until(() -> markerProcesses(marker) == 0);
    }

    private static long markerProcesses(String marker) {
        return ProcessHandle.allProcesses().filter(p -> p.info().arguments().map(List::of).orElse(List.of())
                .contains(marker)).count();
    }

    @Test
    void thePlanHidesFirstThenBindsTheWritableDirectoriesThenHidesWhatTheBindsExposedAgain() {
        Path home = Path.of("/home/u");
        Path ws = Path.of("/home/u/ws");
        Path stateInWs = Path.of("/home/u/ws/.state");
        Path teamHomeInState = Path.of("/home/u/ws/.state/teams/t/home");
        List<Mount> plan = Sandbox.plan(new Sandbox.Layout(ws, List.of(stateInWs, home, Path.of("/tmp/cohort-up/state")),
                List.of(teamHomeInState, ws), List.of(Path.of("/home/u/jdk")), false));
        assertThat(plan).containsExactly(
                new Mount(Kind.TMPFS, Path.of("/tmp")),
                new Mount(Kind.TMPFS, Path.of("/run")),
                // /tmp/cohort-up/state is already hidden by the private /tmp; .state by the home
                new Mount(Kind.TMPFS, home),
                new Mount(Kind.BIND, ws),
                new Mount(Kind.BIND, teamHomeInState),
                new Mount(Kind.TMPFS, stateInWs),
                new Mount(Kind.BIND, teamHomeInState),
                new Mount(Kind.RO_BIND, Path.of("/home/u/jdk")),
                // hidden means empty and unwritable, once the mount points inside exist
                new Mount(Kind.REMOUNT_RO, Path.of("/run")),
                new Mount(Kind.REMOUNT_RO, home),
                new Mount(Kind.REMOUNT_RO, stateInWs));
    }

    @Test
    void aHiddenDirectoryThatIsItselfTheWorkspaceStaysWritable() {
        Path home = Path.of("/home/u");
        List<Mount> plan = Sandbox.plan(new Sandbox.Layout(home, List.of(home), List.of(home), List.of(), false));
        assertThat(plan).containsExactly(new Mount(Kind.TMPFS, Path.of("/tmp")), new Mount(Kind.TMPFS, Path.of("/run")),
                new Mount(Kind.TMPFS, home), new Mount(Kind.BIND, home), new Mount(Kind.REMOUNT_RO, Path.of("/run")));
    }

    @Test
    void otherTeamsWorkspacesInsideTheWorkspaceAreCoveredAgainAndTheDirectoriesAboveThemHeldInPlace() {
        Path ws = Path.of("/srv/ws");
        Path state = Path.of("/var/state");
        Path home = Path.of("/var/state/teams/default/home");
        Path teams = Path.of("/srv/ws/teams");
        Path own = Path.of("/srv/ws/projects/a/own");
        List<Mount> plan = Sandbox.plan(new Sandbox.Layout(ws, List.of(state, own, teams), List.of(ws, home),
                List.of(ws.resolve(".cohort")), false));
        assertThat(plan).containsExactly(
                new Mount(Kind.TMPFS, Path.of("/tmp")),
                new Mount(Kind.TMPFS, Path.of("/run")),
                new Mount(Kind.TMPFS, state),
                new Mount(Kind.BIND, ws),
                new Mount(Kind.BIND, home),
                // mount points cannot be renamed: nothing above the hidden workspace can be moved aside
                new Mount(Kind.BIND, Path.of("/srv/ws/projects")),
                new Mount(Kind.BIND, Path.of("/srv/ws/projects/a")),
                new Mount(Kind.TMPFS, teams),
                new Mount(Kind.TMPFS, own),
                new Mount(Kind.RO_BIND, ws.resolve(".cohort")),
                new Mount(Kind.REMOUNT_RO, Path.of("/run")),
                new Mount(Kind.REMOUNT_RO, state),
                new Mount(Kind.REMOUNT_RO, teams),
                new Mount(Kind.REMOUNT_RO, own));
    }

    @Test
    void aWorkspaceBoundReadOnlyHidesTheOtherTeamsInsideItToo() {
        Path ws = Path.of("/srv/ws");
        Path state = Path.of("/var/state");
        Path home = Path.of("/var/state/teams/default/home");
        Path teams = Path.of("/srv/ws/teams");
        List<Mount> plan = Sandbox.plan(new Sandbox.Layout(ws, List.of(state, teams), List.of(), List.of(ws, home),
                false));
        assertThat(plan).containsExactly(
                new Mount(Kind.TMPFS, Path.of("/tmp")),
                new Mount(Kind.TMPFS, Path.of("/run")),
                new Mount(Kind.TMPFS, state),
                new Mount(Kind.RO_BIND, ws),
                new Mount(Kind.RO_BIND, home),
                new Mount(Kind.TMPFS, teams),
                new Mount(Kind.REMOUNT_RO, Path.of("/run")),
                new Mount(Kind.REMOUNT_RO, state),
                new Mount(Kind.REMOUNT_RO, teams));
    }

    @Test
    void bubblewrapHasItsOwnNetworkUnlessAllowed() {
        Sandbox.Layout closed = new Sandbox.Layout(Path.of("/w"), List.of(), List.of(Path.of("/w")), List.of(), false);
        Sandbox.Layout open = new Sandbox.Layout(Path.of("/w"), List.of(), List.of(Path.of("/w")), List.of(), true);
        assertThat(Sandbox.bubblewrap("bwrap", closed)).contains("--unshare-net", "--unshare-pid", "--die-with-parent");
        assertThat(Sandbox.bubblewrap("bwrap", open)).doesNotContain("--unshare-net").contains("--unshare-pid");
        assertThat(Sandbox.unshare("unshare", "setpriv", Path.of("/r"), List.of(), true, closed)).contains("--net", "--pid");
        assertThat(Sandbox.unshare("unshare", "setpriv", Path.of("/r"), List.of(), true, open)).doesNotContain("--net");
    }

    @Test
    void autoTakesBubblewrapWhenItWorksElseUnshare() {
        assertThat(CommandSandbox.choose(ToolRunnerConfig.Sandbox.AUTO, l -> Optional.empty()))
                .isEqualTo(Level.BUBBLEWRAP);
        assertThat(CommandSandbox.choose(ToolRunnerConfig.Sandbox.AUTO,
                l -> l == Level.BUBBLEWRAP ? Optional.of("bwrap not found") : Optional.empty()))
                .isEqualTo(Level.UNSHARE);
    }

    @Test
    void autoRefusesToStartWhenNoSandboxWorksAndNamesTheWayOut() {
        assertThatThrownBy(() -> CommandSandbox.choose(ToolRunnerConfig.Sandbox.AUTO,
                l -> Optional.of(l.id() + " is broken")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refuses to start")
                .hasMessageContaining("bubblewrap: bubblewrap is broken")
                .hasMessageContaining("unshare: unshare is broken")
                .hasMessageContaining("apt-get install bubblewrap")
                .hasMessageContaining("COHORT_SANDBOX=none");
    }

    @Test
    void aRequestedSandboxThatDoesNotWorkStopsTheStartInsteadOfRunningUnsandboxed() {
        List<Level> probed = new ArrayList<>();
        assertThatThrownBy(() -> CommandSandbox.choose(ToolRunnerConfig.Sandbox.BUBBLEWRAP, l -> {
            probed.add(l);
            return Optional.of("cannot run bwrap (No such file or directory)");
        })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sandbox 'bubblewrap' was requested")
                .hasMessageContaining("cannot run bwrap (No such file or directory)")
                .hasMessageContaining("apt-get install bubblewrap");
        assertThat(probed).as("no fallback to another kind").containsExactly(Level.BUBBLEWRAP);
        assertThatThrownBy(() -> CommandSandbox.choose(ToolRunnerConfig.Sandbox.UNSHARE, l -> Optional.of("EPERM")))
                .hasMessageContaining("sandbox 'unshare' was requested").hasMessageContaining("EPERM");
    }

    @Test
    void noneIsOnlyEverTheExplicitChoiceAndProbesNothing() {
        assertThat(CommandSandbox.choose(ToolRunnerConfig.Sandbox.NONE, l -> {
            throw new AssertionError("probed " + l);
        })).isEqualTo(Level.NONE);
    }

    @Test
    void aRunnerThatIsPid1WarnsThatNothingReapsTheLeftoversOfItsCommands() {
        assertThat(CommandSandbox.pid1Warning(1)).hasValueSatisfying(w -> assertThat(w)
                .startsWith("running as PID 1: the leftovers of commands").contains("shareProcessNamespace: true", "--init"));
        assertThat(CommandSandbox.pid1Warning(2)).isEmpty();
        assertThat(CommandSandbox.pid1Warning(ProcessHandle.current().pid())).isEmpty();
    }
}

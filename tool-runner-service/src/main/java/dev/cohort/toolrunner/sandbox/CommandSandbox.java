package dev.cohort.toolrunner.sandbox;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.CommandCgroups;
import dev.cohort.toolrunner.workspace.ProtectedConfig;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.workspace.Workspaces;
import dev.cohort.toolrunner.worktrees.WorkspaceGit;
import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.File;
import java.io.InputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The sandbox in force for commands. At start-up the requested kind is tried with a real command (a probe) and
 * the level in force is logged; a requested kind that does not work stops the start-up with the reason, and
 * {@code auto} without any working kind refuses to start unless {@code none} was chosen explicitly. Per call it
 * builds the prefix from the call's location (see {@link Sandbox}).
 */
@ApplicationScoped
public class CommandSandbox {
    /** The sandbox actually used. */
    public enum Level {
        BUBBLEWRAP, UNSHARE, NONE;

        /** The name used in configuration, logs and health data. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How long the start-up probe may take (one namespace set-up; seconds even on a loaded machine). */
    private static final long PROBE_SECONDS = 30;
    private static final String PROBE_MARKER = "cohort-sandbox-probe-ok";

    @Inject
    ToolRunnerConfig config;
    @Inject
    Workspaces workspaces;

    private volatile Level level;
    private List<Path> hidden = List.of();
    private List<Path> readOnly = List.of();
    private List<Path> submounts = List.of();
    private Path mountRoot;
    private String unshare;
    private String setpriv;
    private boolean asRoot;

    void onStart(@Observes @Priority(10) StartupEvent ev) {
        if (config.role() == ToolRunnerConfig.Role.CONTROL) {
            return; // runs no command: each team's sandbox pod does
        }
        level();
        pid1Warning(ProcessHandle.current().pid()).ifPresent(Log::warn);
    }

    /**
     * A warning when this JVM is its PID namespace's PID 1 (a container whose entry point execs {@code java}): a
     * command's leftovers, killed after the call, are re-parented to PID 1, and the JVM reaps only the processes it
     * started, so they would stay zombies until the PID limit stops every call.
     */
    static Optional<String> pid1Warning(long pid) {
        return pid != 1 ? Optional.empty()
                : Optional.of("running as PID 1: the leftovers of commands, killed after each call, are re-parented"
                        + " to this JVM, which does not reap them, so they stay zombies; run it under an init that reaps"
                        + " (Kubernetes: shareProcessNamespace: true, as k8s/ does; Docker: --init)");
    }

    /** The level in force (decided once, at start-up). */
    public Level level() {
        Level l = level;
        if (l == null) {
            synchronized (this) {
                if (level == null) {
                    level = decide();
                }
                l = level;
            }
        }
        return l;
    }

    /** {@code true} when the runner runs as root (no user namespace in the sandbox; capabilities are dropped instead). */
    public boolean asRoot() {
        level();
        return asRoot;
    }

    /** The requested kind, as configured. */
    public ToolRunnerConfig.Sandbox requested() {
        return config.sandbox();
    }

    /** The prefix that runs one command of {@code ctx} in the sandbox; empty for {@code none}. */
    public List<String> prefix(ToolContext ctx, Path home) {
        Level l = level();
        if (l == Level.NONE) {
            return List.of();
        }
        return prefix(l, new Sandbox.Layout(ctx.cwd(), hidden(ctx.others()), writable(ctx, home), readOnly(ctx),
                networkAllowed(ctx.team())));
    }

    /**
     * What a call hides: the directories hidden from every call and those holding other teams' workspaces
     * ({@link Workspaces#othersOf}); the call's own workspace is bound on top, and the teams' workspaces inside team
     * {@code default}'s are covered again after its bind.
     */
    private List<Path> hidden(List<Path> others) {
        if (others.isEmpty()) {
            return hidden;
        }
        List<Path> all = new ArrayList<>(hidden);
        all.addAll(others);
        return all;
    }

    /**
     * What a call of {@code ctx} sees read-only on top of its writable directories: the configured extras and, when it
     * runs in the workspace, the workspace's settings directory (created when missing, so no command can create it).
     */
    private List<Path> readOnly(ToolContext ctx) {
        if (ctx.readOnly()) {
            // plan mode: what a call may otherwise write, bound read-only (a hidden home or state is seen, not changed)
            List<Path> all = new ArrayList<>(readOnly);
            all.add(ctx.root());
            if (ctx.worktree() != null && Files.isDirectory(ctx.workspace().resolve(".git"))) {
                all.add(ctx.workspace().resolve(".git"));
            }
            all.add(workspaces.home(ctx.team()));
            return all;
        }
        if (ctx.worktree() != null) {
            return readOnly; // the main workspace is not writable from a worktree (only its .git is)
        }
        List<Path> all = new ArrayList<>(readOnly);
        all.add(ProtectedConfig.ensure(ctx.workspace()));
        return all;
    }

    /**
     * Where a warm sandbox for {@code ctx}'s calls goes: the very prefix a call of {@code ctx} gets, entering the
     * containment root instead of the cwd (the stub {@code cd}s to the call's cwd), and the directories it binds.
     */
    public WarmSandboxes.Key warmKey(ToolContext ctx, Path home) {
        Level l = level();
        List<Path> writable = writable(ctx, home);
        List<String> prefix = l == Level.NONE ? List.of()
                : prefix(l, new Sandbox.Layout(ctx.root(), hidden(ctx.others()), writable, readOnly(ctx),
                        networkAllowed(ctx.team())));
        // the directories whose replacement makes a warm sandbox unusable: those it binds, writable or not
        List<Path> binds = ctx.readOnly() ? List.of(ctx.root(), home) : writable;
        return new WarmSandboxes.Key(ctx.team(), prefix, ctx.root(), binds);
    }

    /**
     * The prefix for the runner's own git on a team's repository ({@link WorkspaceGit}): the sandbox of a command of
     * that team, in {@code cwd}, writable only in {@code writable}, without network, the other teams' workspaces
     * ({@code others}) hidden as from its commands; empty for {@code none}.
     */
    public List<String> gitPrefix(Path cwd, List<Path> writable, List<Path> others) {
        Level l = level();
        if (l == Level.NONE) {
            return List.of();
        }
        return prefix(l, new Sandbox.Layout(cwd, hidden(others), writable, readOnly, false));
    }

    private List<Path> writable(ToolContext ctx, Path home) {
        if (ctx.readOnly()) {
            return List.of(); // only the private /tmp; the rest is bound read-only (readOnly(ctx))
        }
        List<Path> writable = new ArrayList<>();
        writable.add(ctx.root());
        if (ctx.worktree() != null) {
            Path git = ctx.workspace().resolve(".git");
            if (Files.isDirectory(git)) {
                writable.add(git); // a worktree's commits land in the main repository's object store
            }
        }
        writable.add(home);
        return writable;
    }

    private List<String> prefix(Level l, Sandbox.Layout layout) {
        return switch (l) {
            case BUBBLEWRAP -> Sandbox.bubblewrap(config.bwrapPath(), layout);
            case UNSHARE -> Sandbox.unshare(unshare, setpriv, mountRoot, submounts, asRoot, layout);
            case NONE -> List.of();
        };
    }

    /** The team's policy: network only for the teams listed in {@code sandbox-network-teams}. */
    public boolean networkAllowed(String team) {
        List<String> teams = config.sandboxNetworkTeams().orElse(List.of());
        return teams.contains("*") || teams.contains(team);
    }

    private Level decide() {
        ToolRunnerConfig.Sandbox requested = config.sandbox();
        if (requested == ToolRunnerConfig.Sandbox.NONE) {
            Log.warn("sandbox: none (explicit opt-out, cohort.tool-runner.sandbox=none / COHORT_SANDBOX=none): commands"
                    + " run with the runner's rights; they can read its environment, the user's home and the network");
            return Level.NONE;
        }
        hidden = hiddenDirectories();
        readOnly = existingRealPaths(config.sandboxReadOnlyPaths().orElse(List.of()));
        asRoot = runningAsRoot();
        Path probeDir = realDir(workspaces.stateDir().resolve("sandbox").resolve("probe"));
        mountRoot = realDir(workspaces.stateDir().resolve("sandbox").resolve("root"));
        submounts = submounts(Path.of("/proc/self/mountinfo"), hidden, mountRoot);
        unshare = onPath(config.unsharePath());
        setpriv = onPath("setpriv");
        Level chosen = choose(requested, candidate -> probe(candidate, probeDir));
        Log.infof("sandbox: %s (requested: %s); hidden: %s; network for teams: %s", chosen.id(),
                requested.name().toLowerCase(Locale.ROOT), hidden, config.sandboxNetworkTeams().orElse(List.of()));
        return chosen;
    }

    /**
     * The decision (pure): the requested kind when its probe passes, {@code auto} = bubblewrap, else unshare.
     *
     * @param failureOf the probe: empty when the kind works here, else why not
     * @throws IllegalStateException when nothing requested works (the runner must not start unsandboxed)
     */
    static Level choose(ToolRunnerConfig.Sandbox requested, Function<Level, Optional<String>> failureOf) {
        switch (requested) {
            case NONE:
                return Level.NONE;
            case BUBBLEWRAP:
            case UNSHARE: {
                Level l = requested == ToolRunnerConfig.Sandbox.BUBBLEWRAP ? Level.BUBBLEWRAP : Level.UNSHARE;
                Optional<String> why = failureOf.apply(l);
                if (why.isPresent()) {
                    throw new IllegalStateException("sandbox '" + l.id() + "' was requested (cohort.tool-runner.sandbox"
                            + " / COHORT_SANDBOX) but does not work on this machine: " + why.get() + ". "
                            + (l == Level.BUBBLEWRAP ? "Install it (Debian/Ubuntu: apt-get install bubblewrap), " : "")
                            + "choose COHORT_SANDBOX=auto to use what works, or COHORT_SANDBOX=none to run commands"
                            + " unsandboxed (not recommended)");
                }
                return l;
            }
            default: {
                Map<Level, String> failures = new LinkedHashMap<>();
                for (Level l : List.of(Level.BUBBLEWRAP, Level.UNSHARE)) {
                    Optional<String> why = failureOf.apply(l);
                    if (why.isEmpty()) {
                        if (!failures.isEmpty()) {
                            Log.warnf("sandbox: %s does not work here (%s); using %s", Level.BUBBLEWRAP.id(),
                                    failures.get(Level.BUBBLEWRAP), l.id());
                        }
                        return l;
                    }
                    failures.put(l, why.get());
                }
                throw new IllegalStateException("no sandbox works on this machine, so the tool runner refuses to start:"
                        + " bubblewrap: " + failures.get(Level.BUBBLEWRAP) + "; unshare: " + failures.get(Level.UNSHARE)
                        + ". Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or allow user namespaces,"
                        + " or set COHORT_SANDBOX=none to run model-issued commands unsandboxed, with your rights");
            }
        }
    }

    /** Runs {@code sh -c 'echo marker'} in the sandbox of a scratch directory; empty when that worked. */
    private Optional<String> probe(Level l, Path probeDir) {
        List<String> cmd = new ArrayList<>(prefix(l, new Sandbox.Layout(probeDir, hidden, List.of(probeDir), readOnly,
                false)));
        cmd.addAll(List.of("/bin/sh", "-c", "echo " + PROBE_MARKER));
        Process p;
        try {
            p = new ProcessBuilder(cmd).directory(probeDir.toFile()).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException e) {
            return Optional.of("cannot run " + cmd.get(0) + " (" + e.getMessage() + ")");
        }
        try (InputStream in = p.getInputStream()) {
            String out = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
            if (!p.waitFor(PROBE_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("the probe did not finish within " + PROBE_SECONDS + " s");
            }
            if (p.exitValue() == 0 && out.strip().equals(PROBE_MARKER)) {
                return Optional.empty();
            }
            String said = out.strip().replaceAll("\\s+", " ");
            return Optional.of(cmd.get(0) + " exited " + p.exitValue() + ": "
                    + (said.length() > 300 ? said.substring(0, 300) + "…" : said));
        } catch (IOException e) {
            return Optional.of("the probe failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return Optional.of("interrupted");
        }
    }

    /** The user's home ({@code user.home} and {@code $HOME}), the CLI's state, the runner's state, configured extras. */
    private List<Path> hiddenDirectories() {
        List<Path> candidates = new ArrayList<>();
        String userHome = System.getProperty("user.home");
        if (userHome != null && !userHome.isBlank()) {
            candidates.add(Path.of(userHome));
            candidates.add(Path.of(userHome, ".cohort"));
        }
        String envHome = System.getenv("HOME");
        if (envHome != null && !envHome.isBlank()) {
            candidates.add(Path.of(envHome));
        }
        String cliHome = System.getenv("COHORT_HOME");
        if (cliHome != null && !cliHome.isBlank()) {
            candidates.add(Path.of(cliHome));
        }
        candidates.add(workspaces.stateDir());
        config.worktreesDir().ifPresent(candidates::add); // other teams' worktrees
        candidates.addAll(config.sandboxHiddenPaths().orElse(List.of()));
        return existingRealPaths(candidates);
    }

    private static List<Path> existingRealPaths(List<Path> paths) {
        Set<Path> out = new LinkedHashSet<>();
        for (Path p : paths) {
            try {
                Path real = p.toAbsolutePath().toRealPath();
                if (real.getNameCount() > 0) { // never "/" (a service user's home may be /)
                    out.add(real);
                }
            } catch (IOException e) {
                // missing: nothing to hide or bind
            }
        }
        return List.copyOf(out);
    }

    /**
     * Real filesystems mounted below {@code /} that the unshare fallback binds read-only (bubblewrap binds
     * recursively by itself): everything in {@code mountinfo} except the root, the virtual trees the sandbox
     * replaces, hidden directories and the sandbox's own mount root.
     */
    static List<Path> submounts(Path mountinfo, List<Path> hidden, Path mountRoot) {
        List<String> lines;
        try {
            lines = Files.readAllLines(mountinfo);
        } catch (IOException e) {
            return List.of();
        }
        Set<Path> out = new LinkedHashSet<>();
        List<Path> replaced = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"), Path.of("/tmp"),
                Path.of("/run"));
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f.length < 5) {
                continue;
            }
            Path mp = Path.of(CommandCgroups.unescapeMountinfo(f[4]));
            if (mp.getNameCount() == 0 || replaced.stream().anyMatch(mp::startsWith)
                    || hidden.stream().anyMatch(mp::startsWith) || mp.startsWith(mountRoot)) {
                continue;
            }
            out.add(mp);
        }
        return List.copyOf(out);
    }

    
    /** {@code name} as an absolute path: itself when it has a slash, else the first executable on PATH (or itself). */
    public static String onPath(String name) {
        if (name.contains("/")) {
            return name;
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : (path + ":/usr/sbin:/sbin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name).toString();
            }
        }
        return name;
    }

    /** The runner's real uid is 0 ({@code /proc/self/status}). */
    static boolean runningAsRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return "root".equals(System.getProperty("user.name"));
    }

    private static Path realDir(Path p) {
        try {
            Files.createDirectories(p);
            return p.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException("cannot create directory " + p + ": " + e.getMessage(), e);
        }
    }
}

package dev.cohort.toolrunner.workspace;

import dev.cohort.core.protocol.Ids;
import dev.cohort.toolrunner.BadRequest;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.Conflict;
import dev.cohort.toolrunner.persistence.TeamWorkspaceStore;
import dev.cohort.toolrunner.ToolError;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.Set;

/**
 * Maps teams to workspaces and calls to directories. Team {@code default} works in the root; a team created with its
 * own workspace works there (resolved and checked by {@link #assign}, recorded in {@code toolrunner.team_workspaces},
 * so it holds on every replica and after a restart); other teams in {@code <teams-dir>/<team>}. A workspace that is
 * not a git repository is initialised with an (empty) initial commit, because worktrees need one. Runner state
 * (outputs, logs, HOME, worktrees) lives in the state directory, which must not be inside the root.
 */
@ApplicationScoped
public class Workspaces {
    /** Prefix of a {@code cwd} that names a worktree: {@code wt:<name>[/<dir>]}. */
    public static final String WORKTREE_PREFIX = "wt:";
    /** Worktree names: letters, digits, dot, underscore, hyphen, 1–64 characters. */
    public static final Pattern WORKTREE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * Where one call runs.
     *
     * @param others the directories holding other teams' workspaces that the call must neither see nor reach
     *               ({@link #othersOf}), without the team's own workspace
     */
    public record Location(String team, Path workspace, Path root, Path cwd, String worktree, List<Path> others) {
        public Location {
            others = List.copyOf(others);
        }
    }

    /** How long a read of the recorded workspaces serves team {@code default}'s calls before it is read again. */
    private static final long RECORDED_FRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The recorded (own) workspaces of all teams as last read, and when. */
    private record Recorded(List<Path> paths, long readAtNanos) {
    }

    @Inject
    ToolRunnerConfig config;
    @Inject
    TeamWorkspaceStore teamWorkspaces;
    @Inject
    WorkspaceRepository repository;

    private final Map<String, Path> ready = new ConcurrentHashMap<>();
    /** Teams of {@link #ready} whose workspace is recorded (their own), not {@code <teams-dir>/<team>}. */
    private final Set<String> ownWorkspace = ConcurrentHashMap.newKeySet();
    private volatile Path realRoot;
    private volatile Path realState;
    private volatile Recorded recordedRead;

    /**
     * {@code true} in a team sandbox pod ({@code role=sandbox}): the one team it serves works in the workspace root,
     * and no other team's files are there to hide.
     */
    private boolean inTeamSandbox() {
        return config.role() == ToolRunnerConfig.Role.SANDBOX;
    }

    /** Real path of the workspace root (created if missing). */
    public Path root() {
        Path r = realRoot;
        if (r == null) {
            r = realDir(config.workspaceRoot());
            realRoot = r;
        }
        return r;
    }

    /** Real path of the state directory (created if missing). */
    public Path stateDir() {
        Path s = realState;
        if (s == null) {
            s = realDir(config.stateDir());
            Path r = root();
            if (s.startsWith(r)) {
                Log.warnf("state dir %s is inside the workspace root %s: agents could read runner state", s, r);
            }
            realState = s;
        }
        return s;
    }

    /**
     * The team's HOME for commands: in the state directory, never in the workspace. Recreated when missing (a command
     * may remove its own HOME); an existing one costs one {@code toRealPath}, not a failed {@code mkdir} per call.
     */
    public Path home(String team) {
        Path h = stateDir().resolve("teams").resolve(team).resolve("home");
        try {
            Path real = h.toRealPath();
            if (Files.isDirectory(real)) {
                return real;
            }
        } catch (IOException e) {
            // missing: created below
        }
        return realDir(h);
    }

    /** Directory of the team's stored outputs and background logs. */
    public Path outputs(String team) {
        return stateDir().resolve("teams").resolve(team).resolve("outputs");
    }

    /** Directory holding the team's worktrees. */
    public Path worktreesOf(String team) {
        Path base = config.worktreesDir().orElse(stateDir().resolve("worktrees"));
        return realDir(base).resolve(team);
    }

    /**
     * The team's workspace, created and git-initialised on first use. Checked again on every call (a
     * {@code toRealPath} and a comparison), so a symbolic link swapped in later is refused before anything runs.
     *
     * @throws ToolError naming {@code workspace-moved} or {@code workspace-link} when the check fails
     */
    public Path workspace(String team) {
        Path ws = ready.get(team);
        if (ws != null) {
            try {
                verify(team, ws);
            } catch (ToolError e) {
                ready.remove(team, ws);
                throw e;
            }
            return ws;
        }
        return ready.computeIfAbsent(team, this::prepare);
    }

    private Path prepare(String team) {
        Path ws = checkedWorkspace(team, true);
        repository.ensure(team, ws); // only a path that passed the check is initialised
        return ws;
    }

    private void verify(String team, Path ws) {
        if (Ids.DEFAULT_TEAM.equals(team) || inTeamSandbox()) {
            return;
        }
        Path now = ownWorkspace.contains(team) ? checkRecorded(team, ws) : checkDefaultDir(team, false);
        if (!now.equals(ws)) {
            throw new ToolError("workspace-moved", "the workspace of team " + team + " was " + ws
                    + " and now resolves to " + now + "; the tool runner will not work there");
        }
    }

    /** Resolves and checks the team's workspace (the database says whether it has its own). */
    private Path checkedWorkspace(String team, boolean create) {
        if (Ids.DEFAULT_TEAM.equals(team) || inTeamSandbox()) {
            return root();
        }
        Optional<String> own = recordedWorkspace(team);
        if (own.isPresent()) {
            ownWorkspace.add(team);
            return checkRecorded(team, Path.of(own.get()));
        }
        return checkDefaultDir(team, create);
    }

    /** A recorded workspace must still be the same real directory, inside the allowed roots. */
    private Path checkRecorded(String team, Path recorded) {
        Path real;
        try {
            real = recorded.toRealPath();
        } catch (IOException e) {
            throw new ToolError("workspace-moved", "the workspace of team " + team + ", " + recorded
                    + ", no longer exists");
        }
        if (!real.equals(recorded)) {
            throw new ToolError("workspace-moved", "the workspace of team " + team + ", " + recorded
                    + ", now resolves to " + real + " (a symbolic link was put in its place)");
        }
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("workspace-moved", "the workspace of team " + team + ", " + recorded
                    + ", is no longer a directory");
        }
        List<Path> roots = allowedRoots();
        if (roots.stream().noneMatch(real::startsWith)) {
            throw new ToolError("workspace-moved", "the workspace of team " + team + ", " + real
                    + ", is no longer inside an allowed root " + roots);
        }
        return real;
    }

    /** The literal (unresolved) teams directory: {@code teams-dir}, against the root when relative. */
    private Path teamsBase() {
        Path teams = Path.of(config.teamsDir());
        if (teams.isAbsolute()) {
            Path n = teams.normalize();
            Path parent = n.getParent();
            if (parent == null) {
                return n;
            }
            try {
                return parent.toRealPath().resolve(n.getFileName());
            } catch (IOException e) {
                return n;
            }
        }
        return root().resolve(teams).normalize();
    }

    /** {@code <teams-dir>/<team>}: neither it nor the teams directory may be a link; its real path is itself. */
    private Path checkDefaultDir(String team, boolean create) {
        Path base = teamsBase();
        Path dir = base.resolve(team);
        if (Files.isSymbolicLink(base) || Files.isSymbolicLink(dir)) {
            throw new ToolError("workspace-link", "the workspace of team " + team + ", " + dir
                    + ", is (or is under) a symbolic link; the tool runner will not follow it");
        }
        Path real;
        try {
            if (create) {
                Files.createDirectories(base);
                if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        Files.createDirectory(dir); // fails if anything (a link too) appeared meanwhile
                    } catch (FileAlreadyExistsException ignored) {
                        // judged below
                    }
                }
            }
            real = dir.toRealPath();
        } catch (IOException e) {
            throw new ToolError("workspace-link", "the workspace of team " + team + ", " + dir
                    + ", cannot be made or resolved: " + e.getMessage());
        }
        if (!real.equals(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolError("workspace-link", "the workspace of team " + team + ", " + dir
                    + ", resolves to " + real + "; the tool runner will not follow a symbolic link");
        }
        return real;
    }

    private Optional<String> recordedWorkspace(String team) {
        try {
            return teamWorkspaces.find(team);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the workspace of team " + team + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes {@code requested} the workspace of {@code team} (the host creates the team with it): resolved against
     * the root when relative, symlinks resolved, inside one of {@link #allowedRoots()}, not overlapping the state
     * directory, a directory (created when missing), git-initialised when it is not a repository; then recorded.
     * Asking again with the same directory answers the same; a team's workspace is never moved.
     *
     * @return the workspace's real path
     * @throws BadRequest naming the rule that refused it
     * @throws Conflict when the team already has another workspace
     */
    public Path assign(String team, String requested) {
        if (!Ids.isTeam(team)) {
            throw new BadRequest("team must match " + Ids.TEAM.pattern() + " (got '" + team + "')");
        }
        if (config.role() != ToolRunnerConfig.Role.RUNNER) {
            throw refused("team-sandbox", "each team works in the workspace volume of its own sandbox; a directory"
                    + " of the tool runner cannot be assigned (cohort.tool-runner.role=" + config.role() + ")");
        }
        if (Ids.DEFAULT_TEAM.equals(team)) {
            throw refused("default-team", "team default always works in the workspace root");
        }
        Path ws = resolveTeamWorkspace(team, requested);
        repository.ensure(team, ws);
        String recorded;
        try {
            recorded = teamWorkspaces.claim(team, ws.toString(), requested);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record the workspace of team " + team + ": " + e.getMessage(), e);
        }
        if (!recorded.equals(ws.toString())) {
            throw new Conflict("team " + team + " already works in " + recorded
                    + "; a team's workspace is set once, when the team is created");
        }
        ownWorkspace.add(team);
        ready.put(team, ws);
        Recorded r = recordedRead;
        if (r != null && !r.paths().contains(ws)) { // hidden from team default's next call on this replica at once
            List<Path> paths = new ArrayList<>(r.paths());
            paths.add(ws);
            recordedRead = new Recorded(List.copyOf(paths), r.readAtNanos());
        }
        Log.infof("team=%s workspace %s (asked for '%s')", team, ws, requested);
        return ws;
    }

    /** The checks of {@link #assign}, up to creating the directory. */
    Path resolveTeamWorkspace(String team, String requested) {
        if (requested == null || requested.isBlank()) {
            throw refused("workspace-path", "workspace is empty");
        }
        if (requested.indexOf('\0') >= 0 || requested.length() > PathPolicy.MAX_PATH_CHARS) {
            throw refused("workspace-path", "workspace is not a usable path (NUL byte, or longer than "
                    + PathPolicy.MAX_PATH_CHARS + " characters)");
        }
        Path asked;
        try {
            asked = Path.of(requested.strip());
        } catch (InvalidPathException e) {
            throw refused("workspace-path", "workspace '" + requested + "' is not a valid path: " + e.getReason());
        }
        Path real = realOfDeepestExisting((asked.isAbsolute() ? asked : root().resolve(asked)).normalize(), requested);
        checkInsideRoots(real, requested);
        checkNoOverlap(team, real, requested);
        Path state = stateDir();
        if (real.startsWith(state) || state.startsWith(real)) {
            throw refused("workspace-state-overlap", "workspace '" + requested + "' (" + real + ") overlaps the tool"
                    + " runner's state directory " + state + "; agents must not reach runner state");
        }
        if (Files.exists(real) && !Files.isDirectory(real)) {
            throw refused("workspace-not-a-directory", "workspace '" + requested + "' (" + real
                    + ") exists and is not a directory");
        }
        try {
            Files.createDirectories(real);
            real = real.toRealPath();
        } catch (IOException e) {
            throw refused("workspace-not-a-directory", "workspace '" + requested + "' (" + real
                    + ") cannot be created as a directory: " + e.getMessage());
        }
        checkInsideRoots(real, requested); // again: a link swapped in while the directories were made
        checkNoOverlap(team, real, requested);
        return real;
    }

    /**
     * A team workspace must not equal or contain the root, equal or contain the teams directory, lie inside another
     * team's {@code <teams-dir>/<other>}, or equal, contain or lie inside another team's recorded workspace.
     */
    private void checkNoOverlap(String team, Path real, String requested) {
        Path root = root();
        if (root.startsWith(real)) {
            throw overlap(requested, real, "the tool runner's root " + root + " (team default's workspace)");
        }
        Path teams = teamsBase();
        if (teams.startsWith(real)) {
            throw overlap(requested, real, "the teams directory " + teams);
        }
        if (real.startsWith(teams) && !real.startsWith(teams.resolve(team))) {
            throw overlap(requested, real, "the default workspace of team " + teams.relativize(real).getName(0));
        }
        Map<String, String> others;
        try {
            others = teamWorkspaces.othersThan(team);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the team workspaces: " + e.getMessage(), e);
        }
        for (Map.Entry<String, String> o : others.entrySet()) {
            Path p = Path.of(o.getValue());
            if (real.startsWith(p) || p.startsWith(real)) {
                throw overlap(requested, real, "the workspace of team " + o.getKey() + " (" + p + ")");
            }
        }
    }

    private static BadRequest overlap(String requested, Path real, String what) {
        return refused("workspace-overlap", "workspace '" + requested + "' (" + real + ") overlaps " + what
                + "; team workspaces must not contain or lie inside one another");
    }

    private void checkInsideRoots(Path real, String requested) {
        List<Path> roots = allowedRoots();
        if (roots.stream().noneMatch(real::startsWith)) {
            throw refused("workspace-roots", "workspace '" + requested + "' resolves to " + real
                    + ", which is not inside an allowed root " + roots + " (cohort.tool-runner.workspace-roots)");
        }
    }

    /**
     * The directories that hold, or may hold, the workspaces of teams other than {@code team}: the root (team
     * {@code default}'s workspace) for every other team; the teams directory; each of {@code workspace-roots}; and for
     * team {@code default}, whose workspace may contain them, every recorded own workspace. The team's sandbox covers
     * each with an empty, read-only directory (its own workspace, bound on top, stays reachable) and its file tools
     * refuse paths in them. Only existing directories that are their own real path are listed (a mount needs one);
     * the team's own workspace may be among them (a caller leaves it out).
     *
     * <p>For team {@code default} the teams directory, when it lies in the root, is created (empty) when missing, so
     * that it is hidden from the first call on: no command of team {@code default} can make a directory there that a
     * team created later would take as its workspace.
     *
     * @throws ToolError with rule {@code other-team-workspace} when the recorded workspaces cannot be read
     */
    public List<Path> othersOf(String team) {
        if (inTeamSandbox()) {
            return List.of(); // a sandbox pod holds one team's files and no other's
        }
        Path root = root();
        boolean isDefault = Ids.DEFAULT_TEAM.equals(team);
        List<Path> candidates = new ArrayList<>();
        if (!isDefault) {
            candidates.add(root);
        }
        Path teams = teamsBase();
        if (isDefault && teams.startsWith(root) && !teams.equals(root)
                && !Files.exists(teams, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(teams);
            } catch (IOException e) {
                Log.warnf("cannot create the teams directory %s: %s", teams, e.getMessage());
            }
        }
        candidates.add(teams);
        candidates.addAll(allowedRoots());
        if (isDefault) {
            candidates.addAll(recordedWorkspaces());
        }
        return existingOwnRealDirectories(candidates, isDefault ? root : null);
    }

    /** The recorded workspaces, read at most once a second, and at once on this replica after {@link #assign}. */
    private List<Path> recordedWorkspaces() {
        Recorded r = recordedRead;
        long now = System.nanoTime();
        if (r != null && now - r.readAtNanos() < RECORDED_FRESH_NANOS) {
            return r.paths();
        }
        try {
            List<Path> paths = teamWorkspaces.othersThan(Ids.DEFAULT_TEAM).values().stream().map(Path::of).toList();
            recordedRead = new Recorded(paths, now);
            return paths;
        } catch (SQLException e) {
            if (r != null) {
                Log.warnf("cannot read the team workspaces again (%s); hiding the ones read before", e.getMessage());
                return r.paths();
            }
            throw new ToolError("other-team-workspace", "the tool runner cannot read which directories are other"
                    + " teams' workspaces, so it cannot hide them; nothing runs until its database answers");
        }
    }

    /** Existing directories whose real path is themselves, without {@code exclude}, {@code /} and duplicates. */
    private static List<Path> existingOwnRealDirectories(List<Path> candidates, Path exclude) {
        Set<Path> out = new LinkedHashSet<>();
        for (Path p : candidates) {
            if (p.getNameCount() == 0 || p.equals(exclude)) {
                continue;
            }
            try {
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && p.toRealPath().equals(p)) {
                    out.add(p);
                }
            } catch (IOException e) {
                // gone meanwhile: nothing to hide
            }
        }
        return List.copyOf(out);
    }

    /** Real paths of {@code workspace-roots} (relative ones against the root); missing roots allow nothing. */
    public List<Path> allowedRoots() {
        List<Path> out = new ArrayList<>();
        for (Path r : config.workspaceRoots().orElse(List.of(root()))) {
            try {
                out.add((r.isAbsolute() ? r : root().resolve(r)).toRealPath());
            } catch (IOException e) {
                Log.warnf("workspace root %s does not exist: no team workspace can be in it", r);
            }
        }
        return out;
    }

    private static Path realOfDeepestExisting(Path candidate, String requested) {
        Path existing = candidate;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            throw refused("workspace-path", "workspace '" + requested + "' has no existing ancestor");
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(candidate));
        } catch (NoSuchFileException e) {
            throw refused("workspace-path", "workspace '" + requested + "' goes through a dangling symbolic link");
        } catch (IOException e) {
            throw refused("workspace-path", "cannot resolve workspace '" + requested + "': " + e.getMessage());
        }
    }

    private static BadRequest refused(String rule, String message) {
        return new BadRequest(message + " (rule: " + rule + ")");
    }

    /**
     * Resolves the host-chosen {@code cwd}: empty for the workspace, a workspace-relative directory, or
     * {@code wt:<name>[/<dir>]} for a worktree (then the worktree is the containment root).
     *
     * @throws IllegalArgumentException when cwd is invalid (a host error, answered 400)
     */
    public Location locate(String team, String cwd) {
        Path ws = workspace(team);
        List<Path> others = othersOf(team).stream().filter(o -> !o.equals(ws)).toList();
        String c = cwd == null ? "" : cwd.strip();
        Path root = ws;
        String worktree = null;
        String rel = c;
        if (c.startsWith(WORKTREE_PREFIX)) {
            String rest = c.substring(WORKTREE_PREFIX.length());
            int slash = rest.indexOf('/');
            worktree = slash < 0 ? rest : rest.substring(0, slash);
            rel = slash < 0 ? "" : rest.substring(slash + 1);
            if (!WORKTREE_NAME.matcher(worktree).matches() || worktree.equals(".") || worktree.equals("..")) {
                throw new IllegalArgumentException("cwd names an invalid worktree '" + worktree + "'");
            }
            Path wt = worktreesOf(team).resolve(worktree);
            if (!Files.isDirectory(wt)) {
                throw new IllegalArgumentException("cwd names worktree '" + worktree + "', which does not exist");
            }
            try {
                root = wt.toRealPath();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (rel.isEmpty() || rel.equals(".")) {
            return new Location(team, ws, root, root, worktree, others);
        }
        if (rel.startsWith("/")) {
            throw new IllegalArgumentException("cwd must be relative to the workspace, not absolute: " + cwd);
        }
        Path dir;
        try {
            dir = PathPolicy.resolve(root, root, rel);
            PathPolicy.refuseOtherTeams(dir, PathPolicy.inside(root, others), rel);
        } catch (ToolError e) {
            throw new IllegalArgumentException("cwd '" + cwd + "' is not usable: " + e.modelMessage());
        }
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("cwd '" + cwd + "' is not an existing directory");
        }
        return new Location(team, ws, root, dir, worktree, others);
    }

    private static Path realDir(Path p) {
        try {
            Files.createDirectories(p);
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create directory " + p, e);
        }
    }
}

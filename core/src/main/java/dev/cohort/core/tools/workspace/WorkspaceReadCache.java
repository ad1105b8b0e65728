package dev.cohort.core.tools.workspace;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * A {@link WorkspaceToolExecutor} that also keeps, per team and cwd, what the engine reads from the workspace at every
 * turn start (the workspace skills, the hook settings file: {@code SkillLibrary}, {@code WorkspaceHookSettings}), so
 * the turn of an agent whose team's files did not change makes no tool-runner round trip for them. Every other call
 * goes straight to the executor it wraps.
 *
 * <p>When a kept value is not used any more:
 * <ul>
 * <li><b>explicitly</b>: any call through this executor that may change files (every tool but those its catalogue
 * declares read-only: {@code bash}, {@code write_file}, {@code edit_file}, worktree changes, …) drops its team's values once
 * it returned or failed, so a change made by an agent of this process is seen by the next turn of every agent of the
 * team; {@link #invalidate} for the other signals the host has (a background job of the team finished);</li>
 * <li><b>by age</b>, for changes made elsewhere (a person, another service or replica): a value is served at most
 * {@code ttl} after its read started; a turn start that finds one older than half of it still uses it and refreshes
 * it in the background, so a team with steady turns keeps its values fresh without a read on their path.</li>
 * </ul>
 * A value read while one of the team's calls was changing files is never served after that call returned: each value
 * carries the team's generation from before its read, and {@link #invalidate} moves the generation on.
 */
public final class WorkspaceReadCache implements WorkspaceToolExecutor {
    private static final Logger LOG = Logger.getLogger(WorkspaceReadCache.class);

    /**
     * What a read found, and whether it may be kept: a failed read (the runner down, an error other than "not found")
     * is used by its turn only, so the next turn reads again.
     */
    public record Read<T>(T value, boolean keep) {
        public static <T> Read<T> kept(T value) {
            return new Read<>(value, true);
        }

        public static <T> Read<T> once(T value) {
            return new Read<>(value, false);
        }
    }

    private record Key(String cwd, String what) {
    }

    private record Entry(long generation, Instant readAt, Object value) {
    }

    /** One team's values and its generation (moved on by every change). */
    private static final class TeamReads {
        final AtomicLong generation = new AtomicLong();
        final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();
        final Set<Key> refreshing = ConcurrentHashMap.newKeySet();
        final AtomicLong reads = new AtomicLong();
    }

    private final WorkspaceToolExecutor delegate;
    private final Predicate<String> changesNothing;
    private final Duration ttl;
    private final Clock clock;
    private final ConcurrentHashMap<String, TeamReads> teams = new ConcurrentHashMap<>();
    private final AtomicLong reads = new AtomicLong();

    /**
     * @param delegate       the executor every call goes to
     * @param changesNothing which tools change no file (their calls keep the team's values): the catalogue's
     *                       read-only tools ({@link WorkspaceCatalogue#changesNothing})
     * @param ttl      the longest a value is served after its read (positive); changes made outside this process are
     *                 seen within it
     * @param clock    the clock of {@code ttl} (tests move it)
     */
    public WorkspaceReadCache(WorkspaceToolExecutor delegate, Predicate<String> changesNothing, Duration ttl,
            Clock clock) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.changesNothing = Objects.requireNonNull(changesNothing, "changesNothing");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("the workspace read cache's ttl must be positive, was " + ttl);
        }
        this.ttl = ttl;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public ToolOutcome execute(String tool, String callId, ObjectNode args, Target target) {
        if (changesNothing.test(tool)) {
            return delegate.execute(tool, callId, args, target);
        }
        try {
            return delegate.execute(tool, callId, args, target);
        } finally {
            // after the change (or its failure: its outcome is unknown), never before: a read that ran meanwhile
            // belongs to the old generation
            invalidate(target.team());
        }
    }

    /** The team's files may have changed: its kept values (every cwd, worktrees included) are read again. */
    public void invalidate(String team) {
        TeamReads t = teams.get(team);
        if (t != null) {
            t.generation.incrementAndGet();
            t.entries.clear();
        }
    }

    /**
     * The value of {@code what} for the target's team and cwd: the kept one while it is fresh, else {@code read}'s
     * (run on this thread, reading through this executor), kept when it says so. A kept value older than half the ttl
     * is returned and read again in the background.
     */
    @SuppressWarnings("unchecked")
    public <T> T get(String what, Target target, Supplier<Read<T>> read) {
        TeamReads t = teams.computeIfAbsent(target.team(), k -> new TeamReads());
        Key key = new Key(target.cwd() == null ? "" : target.cwd(), what);
        Instant now = clock.instant();
        Entry e = t.entries.get(key);
        if (e != null && e.generation() == t.generation.get() && now.isBefore(e.readAt().plus(ttl))) {
            if (!now.isBefore(e.readAt().plus(ttl.dividedBy(2))) && t.refreshing.add(key)) {
                Thread.ofVirtual().name("workspace-read-" + target.team()).start(() -> {
                    try {
                        load(t, key, read);
                    } catch (RuntimeException ex) {
                        LOG.debugf("team=%s background read of %s failed (read again by a turn): %s", target.team(), what,
                                ex.toString());
                    } finally {
                        t.refreshing.remove(key);
                    }
                });
            }
            return (T) e.value();
        }
        return load(t, key, read);
    }

    /** Reads {@code what} now, whatever is kept, and keeps the result when it may be (e.g. a skill asked for by name). */
    public <T> T reload(String what, Target target, Supplier<Read<T>> read) {
        TeamReads t = teams.computeIfAbsent(target.team(), k -> new TeamReads());
        return load(t, new Key(target.cwd() == null ? "" : target.cwd(), what), read);
    }

    /** Reads made for a missing or stale value so far (foreground and background), for tests and benchmarks. */
    public long reads() {
        return reads.get();
    }

    /** {@link #reads()} of one team. */
    public long reads(String team) {
        TeamReads t = teams.get(team);
        return t == null ? 0 : t.reads.get();
    }

    private <T> T load(TeamReads t, Key key, Supplier<Read<T>> read) {
        long generation = t.generation.get();
        Instant startedAt = clock.instant();
        reads.incrementAndGet();
        t.reads.incrementAndGet();
        Read<T> r = read.get();
        if (r.keep()) {
            // a value of an older generation is put but never served (the lookup compares generations)
            t.entries.merge(key, new Entry(generation, startedAt, r.value()),
                    (old, mine) -> old.generation() > mine.generation() || old.readAt().isAfter(mine.readAt()) ? old : mine);
        }
        return r.value();
    }
}

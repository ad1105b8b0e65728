package dev.cohort.teammate.lifecycle;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.permission.PermissionRuleSet;
import dev.cohort.core.engine.Usage;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.client.LeadTeam;
import dev.cohort.teammate.config.TeammateConfig;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;

/**
 * The permission mode, the permission rules, the MCP servers and the own budgets of each team, which its teammates follow
 * (ARCHITECTURE §3.4: a team in {@code plan} mode is read-only, {@code deny-asks} denies every ask, a team's rules
 * apply, … for the lead and the teammates alike). The team is lead-service's
 * data, read over its internal API ({@code GET /internal/v1/teams/{team}}) and trusted for
 * {@code cohort.teammate.mode-refresh} (2 s): the engine asks at every tool call, the lead at most once per team per
 * interval. An older value (up to {@link #MAX_STALE}, 30 s) is still answered while it is read again in the
 * background, so an agent's step never waits for lead-service then (that read at every turn start was on the
 * path from a message to the teammate's model request); older than that, the step waits for the read. Before a turn
 * stops on a budget the engine asks for a fresh read ({@link #reread}, through {@link dev.cohort.core.engine.BudgetSource}),
 * so a budget raised through the API lets the teammate's next message run. With them comes the team's usage in the current UTC day (the lead's usage ledger, for the per-day team
 * budget), trusted as long: it is at most {@code mode-refresh} (while read in the background: plus one read) plus the lead's event-log lag behind (a teammate's call
 * counts once its {@code assistant_message} is stored by the lead), and a value of yesterday counts nothing after
 * 00:00 UTC ({@link Budgets.DayUsage#on}). When the lead cannot be read the last mode read is kept; a team never read yet is {@code default} (its
 * asks then go to the lead, which cannot be reached either, so they are denied), with a warning.
 */
@ApplicationScoped
public class TeamModes {

    private record Known(PermissionMode mode, Budgets.Overrides budgets, Budgets.DayUsage today,
            PermissionRuleSet permissions, Map<String, McpServerConfig> mcpServers, long readAt) {
    }

    /** What "today" is (UTC); tests set another. */
    private volatile Clock clock = Clock.systemUTC();

    /** Counts "today" by {@code c} from now on ({@code null}: the system's UTC clock); for tests. */
    public void useClock(Clock c) {
        clock = c == null ? Clock.systemUTC() : c;
    }

    @Inject
    LeadInternalClient lead;

    @Inject
    TeammateConfig config;

    private final ConcurrentHashMap<String, Known> known = new ConcurrentHashMap<>();

    /** Teams being read in the background now. */
    private final Set<String> reading = ConcurrentHashMap.newKeySet();

    /**
     * A value older than the refresh interval but younger than this is used while it is read again in the background;
     * older, the step waits for the read.
     */
    static final Duration MAX_STALE = Duration.ofSeconds(30);

    /** The team's mode now. */
    public PermissionMode of(String team) {
        return known(team).mode();
    }

    /**
     * The team's own budgets ({@code PUT /api/v1/teams/{team}/budgets} on the lead), read with the mode and trusted as
     * long; {@code null} = none (or never read: the configured {@code cohort.engine.budgets.*} apply).
     */
    public Budgets.Overrides budgets(String team) {
        return known(team).budgets();
    }

    /**
     * The team's permission rules set through the lead's API, read with the mode and trusted as long (the engine reads
     * them at every turn start); {@link PermissionRuleSet#EMPTY} when there are none or the lead was never read. When
     * the lead cannot be read the last rules read are kept, so a deny is not dropped while it is away.
     */
    public PermissionRuleSet permissions(String team) {
        PermissionRuleSet p = known(team).permissions();
        return p == null ? PermissionRuleSet.EMPTY : p;
    }

    /**
     * The team's own MCP servers set through the lead's API ({@code PUT /api/v1/teams/{team}/mcp}), whole (the tool
     * runner resolves their {@code ${VAR}}s), read with the mode and trusted as long (the engine reads them at every
     * turn start and adds the workspace settings file's); empty when there are none or the lead was never read. When the
     * lead cannot be read the last servers read are kept.
     */
    public Map<String, McpServerConfig> mcpServers(String team) {
        Map<String, McpServerConfig> m = known(team).mcpServers();
        return m == null ? Map.of() : m;
    }

    /**
     * The team's usage in the current UTC day as the lead last answered it; {@code null} when the lead did not send it
     * (never read, or a lead before per-day budgets: the per-day team budget is then not checked here). A value read
     * yesterday is {@link dev.cohort.core.engine.Usage#ZERO} today.
     */
    public Usage usageToday(String team) {
        Budgets.DayUsage d = known(team).today();
        return d == null ? null : d.on(clock);
    }

    /**
     * Reads the team from lead-service now, past the cache (the engine, before it stops a turn on a budget: a budget
     * raised through the API lets the step run).
     *
     * @return {@code true} when lead-service answered, {@code false} when the last values had to be kept
     */
    public boolean reread(String team) {
        return read(team, known.get(team)) != null;
    }

    /** The values to use now: fresh, or stale and being read again in the background, or read here. */
    private Known known(String team) {
        Known k = known.get(team);
        if (k != null) {
            long age = System.nanoTime() - k.readAt();
            if (age < config.modeRefresh().toNanos()) {
                return k;
            }
            if (age < maxStaleNanos()) {
                readInBackground(team);
                return k;
            }
        }
        Known fresh = read(team, k);
        return fresh != null ? fresh : known.get(team);
    }

    /** How long a value read before is served while a newer one is read: {@link #MAX_STALE}, at least the refresh. */
    private long maxStaleNanos() {
        return Math.max(MAX_STALE.toNanos(), config.modeRefresh().toNanos());
    }

    /** One background read per team at a time (a virtual thread; the agent's step does not wait for it). */
    private void readInBackground(String team) {
        if (!reading.add(team)) {
            return;
        }
        try {
            Thread.ofVirtual().name("team-modes-" + team).start(() -> {
                try {
                    read(team, known.get(team));
                } finally {
                    reading.remove(team);
                }
            });
        } catch (RuntimeException e) {
            reading.remove(team);
            throw e;
        }
    }

    /**
     * Asks lead-service; stores and returns what it answered, or {@code null} when it could not be read (the last
     * values {@code k} are then kept, and asked again only after the refresh interval, not at every call).
     */
    private Known read(String team, Known k) {
        long now = System.nanoTime();
        try {
            LeadTeam t = lead.team(team);
            PermissionMode mode = PermissionMode.of(t == null || t.permissionMode() == null ? "default" : t.permissionMode());
            Known fresh = new Known(mode, t == null ? null : t.budgets(), t == null ? null : t.dayUsage(),
                    t == null ? null : t.permissions(), t == null ? null : t.mcpServers(), now);
            known.put(team, fresh);
            return fresh;
        } catch (RuntimeException e) {
            PermissionMode fallback = k != null ? k.mode() : PermissionMode.DEFAULT;
            Known kept = new Known(fallback, k != null ? k.budgets() : null, k != null ? k.today() : null,
                    k != null ? k.permissions() : null, k != null ? k.mcpServers() : null, now);
            known.put(team, kept);
            Log.warnf("team=%s cannot read the team's permission mode, rules, MCP servers and budgets from lead-service"
                    + " (%s); using %s and the last rules and servers read", team, e.toString(), fallback.wire());
            return null;
        }
    }
}

package dev.cohort.teammate.service;

import dev.cohort.core.engine.Budgets;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.client.LeadTeam;
import dev.cohort.teammate.config.TeammateConfig;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The permission mode and the own budgets of each team, which its teammates follow (ARCHITECTURE §3.4: a team in {@code plan} mode is
 * read-only, {@code deny-asks} denies every ask, … for the lead and the teammates alike). The team is lead-service's
 * data, read over its internal API ({@code GET /internal/v1/teams/{team}}) and trusted for
 * {@code cohort.teammate.mode-refresh} (2 s): the engine asks at every tool call, the lead at most once per team per
 * interval. With them comes the team's usage in the current UTC day (the lead's usage ledger, for the per-day team
 * budget), trusted as long: it is at most {@code mode-refresh} plus the lead's event-log lag behind (a teammate's call
 * counts once its {@code assistant_message} is stored by the lead), and a value of yesterday counts nothing after
 * 00:00 UTC ({@link Budgets.DayUsage#on}). When the lead cannot be read the last mode read is kept; a team never read yet is {@code default} (its
 * asks then go to the lead, which cannot be reached either, so they are denied), with a warning.
 */
@ApplicationScoped
public class TeamModes {

    private record Known(PermissionMode mode, Budgets.Overrides budgets, Budgets.DayUsage today, long readAt) {
    }

    /** What "today" is (UTC); tests set another. */
    private volatile java.time.Clock clock = java.time.Clock.systemUTC();

    /** Counts "today" by {@code c} from now on ({@code null}: the system's UTC clock); for tests. */
    public void useClock(java.time.Clock c) {
        clock = c == null ? java.time.Clock.systemUTC() : c;
    }

    @Inject
    LeadInternalClient lead;

    @Inject
    TeammateConfig config;

    private final ConcurrentHashMap<String, Known> known = new ConcurrentHashMap<>();

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
     * The team's usage in the current UTC day as the lead last answered it; {@code null} when the lead did not send it
     * (never read, or a lead before per-day budgets: the per-day team budget is then not checked here). A value read
     * yesterday is {@link dev.cohort.core.engine.Usage#ZERO} today.
     */
    public dev.cohort.core.engine.Usage usageToday(String team) {
        Budgets.DayUsage d = known(team).today();
        return d == null ? null : d.on(clock);
    }

    /**
     * Makes the next read of the team ask lead-service again (the last values stay the fallback): a teammate's turn
     * starts on a fresh mode and fresh budgets, so a budget raised through the API lets its next message run.
     */
    public void refresh(String team) {
        known.computeIfPresent(team, (t, k) -> new Known(k.mode(), k.budgets(), k.today(),
                System.nanoTime() - config.modeRefresh().toNanos() - 1));
    }

    private Known known(String team) {
        Known k = known.get(team);
        long now = System.nanoTime();
        if (k != null && now - k.readAt() < config.modeRefresh().toNanos()) {
            return k;
        }
        try {
            LeadTeam t = lead.team(team);
            PermissionMode mode = PermissionMode.of(t == null || t.permissionMode() == null ? "default" : t.permissionMode());
            Known fresh = new Known(mode, t == null ? null : t.budgets(), t == null ? null : t.dayUsage(), now);
            known.put(team, fresh);
            return fresh;
        } catch (RuntimeException e) {
            PermissionMode fallback = k != null ? k.mode() : PermissionMode.DEFAULT;
            Known kept = new Known(fallback, k != null ? k.budgets() : null, k != null ? k.today() : null, now);
            known.put(team, kept); // asked again after the refresh interval, not at every call
            Log.warnf("team=%s cannot read the team's permission mode and budgets from lead-service (%s); using %s",
                    team, e.toString(), fallback.wire());
            return kept;
        }
    }
}

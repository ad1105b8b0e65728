package dev.cohort.lead.budgets;

import dev.cohort.core.engine.Budgets;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A team's own budgets ({@code lead.team_budgets}, V15; the per-day ones V16) over the {@code cohort.engine.budgets.*}
 * defaults. Every write of the table goes through this class. The lead checks them twice per model call, so it reads
 * them through {@link #cached} (uncached: two statements per model call, 42 per 20-round turn, ~6 % of the agent
 * thread): a write through this repository applies at once on this replica, one made elsewhere (another replica, by
 * hand) within {@code cohort.lead.budget-cache-ttl}. {@link #find} (the budgets API, the internal team API that
 * teammate hosts poll) always reads the table.
 */
@ApplicationScoped
public class BudgetRepository {

    @Inject
    AgroalDataSource ds;

    /** How long a cached read is served ({@code cohort.lead.budget-cache-ttl}); set once before the bean is used. */
    private volatile long ttlNanos = Duration.ofSeconds(2).toNanos();

    /** Where the cache's time comes from; a test sets another ({@link #useTicker}). */
    private volatile LongSupplier ticker = System::nanoTime;

    /** A team's overrides as read at {@code readAt} ({@link #ticker}'s time). */
    private record Entry(Budgets.Overrides overrides, long readAt) {
    }

    /** Overrides as last read here, per team; a write through this class removes the team's entry. */
    private final ConcurrentHashMap<String, Entry> entries =
            new ConcurrentHashMap<>();

    /** Bumped by every write: a read that overlapped a write does not fill the cache (it may hold the old values). */
    private final AtomicLong writes = new AtomicLong();

    @Inject
    void configure(LeadConfig config) {
        Duration ttl = config.budgetCacheTtl();
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("cohort.lead.budget-cache-ttl must not be negative, got " + ttl);
        }
        ttlNanos = ttl.toNanos();
    }

    /** Measures the cache's age with {@code t} ({@code null}: {@link System#nanoTime} again); for tests. */
    public void useTicker(LongSupplier t) {
        ticker = t == null ? System::nanoTime : t;
    }

    /**
     * The team's overrides without a query when they were read here less than {@code cohort.lead.budget-cache-ttl}
     * ago and not written through this repository since; otherwise {@link #find}.
     */
    public Budgets.Overrides cached(String team) {
        Entry e = entries.get(team);
        if (e != null && ticker.getAsLong() - e.readAt() < ttlNanos) {
            return e.overrides();
        }
        return find(team);
    }

    /**
     * The team's overrides as stored now (one query), {@link Budgets.Overrides#NONE} when it set none; refreshes
     * {@link #cached}.
     */
    public Budgets.Overrides find(String team) {
        long w = writes.get();
        long readAt = ticker.getAsLong();
        Budgets.Overrides found = query(team);
        synchronized (entries) {
            if (writes.get() == w) {
                entries.put(team, new Entry(found, readAt));
            }
        }
        return found;
    }

    private void written(String team) {
        synchronized (entries) {
            writes.incrementAndGet();
            entries.remove(team);
        }
    }

    private Budgets.Overrides query(String team) {
        return Sql.inTransaction(ds, "budgets of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT tokens_per_turn, tokens_per_agent, tokens_per_team, "
                    + "cost_per_turn_usd, cost_per_agent_usd, cost_per_team_usd, tokens_per_team_per_day, "
                    + "cost_per_team_per_day_usd FROM lead.team_budgets WHERE team = ?")) {
                ps.setString(1, team);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Budgets.Overrides.NONE;
                    }
                    return new Budgets.Overrides(rs.getObject(1, Long.class), rs.getObject(2, Long.class),
                            rs.getObject(3, Long.class), rs.getObject(4, Double.class), rs.getObject(5, Double.class),
                            rs.getObject(6, Double.class), rs.getObject(7, Long.class), rs.getObject(8, Double.class));
                }
            }
        });
    }

    /** Replaces the team's overrides by {@code o} (a {@code null} value: the default again). */
    public void save(String team, Budgets.Overrides o) {
        try {
            store(team, o);
        } finally {
            written(team);
        }
    }

    private void store(String team, Budgets.Overrides o) {
        Sql.inTransaction(ds, "set budgets of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.team_budgets (team, tokens_per_turn, "
                    + "tokens_per_agent, tokens_per_team, cost_per_turn_usd, cost_per_agent_usd, cost_per_team_usd, "
                    + "tokens_per_team_per_day, cost_per_team_per_day_usd) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team) DO UPDATE SET tokens_per_turn = EXCLUDED.tokens_per_turn, "
                    + "tokens_per_agent = EXCLUDED.tokens_per_agent, tokens_per_team = EXCLUDED.tokens_per_team, "
                    + "cost_per_turn_usd = EXCLUDED.cost_per_turn_usd, cost_per_agent_usd = EXCLUDED.cost_per_agent_usd, "
                    + "cost_per_team_usd = EXCLUDED.cost_per_team_usd, "
                    + "tokens_per_team_per_day = EXCLUDED.tokens_per_team_per_day, "
                    + "cost_per_team_per_day_usd = EXCLUDED.cost_per_team_per_day_usd, updated_at = now()")) {
                ps.setString(1, team);
                setLong(ps, 2, o.tokensPerTurn());
                setLong(ps, 3, o.tokensPerAgent());
                setLong(ps, 4, o.tokensPerTeam());
                setDouble(ps, 5, o.costPerTurnUsd());
                setDouble(ps, 6, o.costPerAgentUsd());
                setDouble(ps, 7, o.costPerTeamUsd());
                setLong(ps, 8, o.tokensPerTeamPerDay());
                setDouble(ps, 9, o.costPerTeamPerDayUsd());
                ps.executeUpdate();
            }
            return null;
        });
    }

    private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.BIGINT);
        } else {
            ps.setLong(i, v);
        }
    }

    private static void setDouble(PreparedStatement ps, int i, Double v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.DOUBLE);
        } else {
            ps.setDouble(i, v);
        }
    }
}

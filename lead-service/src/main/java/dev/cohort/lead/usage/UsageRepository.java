package dev.cohort.lead.usage;

import dev.cohort.core.engine.Usage;
import dev.cohort.core.protocol.Event;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The usage ledger {@code lead.usage}: one row per stored {@code assistant_message}, written by
 * {@link #record(Connection, Event)} in the transaction that stores the event (the event log calls it next to the
 * roster's projection), so an event stored once is counted once and a redelivered one not at all. Read per agent,
 * turn or day (the usage endpoint) and as a team's total since an instant (a per-day budget).
 */
@ApplicationScoped
public class UsageRepository {

    /** How the endpoint groups the ledger. */
    public enum By {
        AGENT, TURN, DAY;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The grouping a query parameter names, empty for an unknown one. */
        public static Optional<By> of(String s) {
            for (By b : values()) {
                if (b.wire().equals(s)) {
                    return Optional.of(b);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * One group's counters.
     *
     * @param key    the agent's name, the turn's id or the day (ISO)
     * @param agent  the agent ({@code by=agent|turn})
     * @param turnId the turn ({@code by=turn})
     * @param day    the day, UTC ({@code by=day})
     * @param totals the counters
     */
    public record Group(String key, String agent, String turnId, LocalDate day, UsageTotals totals) {
    }

    @Inject
    AgroalDataSource ds;

    private static final String INSERT = "INSERT INTO lead.usage (event_id, team, agent, turn_id, prompt_id, model, ts,"
            + " day, prompt_tokens, completion_tokens, cached_tokens, cost_usd, cache_write_tokens, price_known)"
            + " VALUES (?, ?, ?, ?,"
            + " (SELECT p.id FROM lead.prompts p WHERE p.team = ? AND p.turn_id = ? ORDER BY p.seq LIMIT 1),"
            + " ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING";

    /**
     * The usage row as a data-modifying CTE named {@code g} over the CTE {@code eventCte}, whose {@code RETURNING id}
     * row exists only if the event's row was inserted: so the event, its counter and its usage are one statement
     * ({@code EventRepository}). Its parameters are bound by {@link #bindCte}.
     */
    public static String cte(String eventCte) {
        return "g AS (INSERT INTO lead.usage (event_id, team, agent, turn_id, prompt_id, model, ts, day, prompt_tokens, "
                + "completion_tokens, cached_tokens, cost_usd, cache_write_tokens, price_known) SELECT " + eventCte
                + ".id, ?, ?, ?, (SELECT p.id FROM "
                + "lead.prompts p WHERE p.team = ? AND p.turn_id = ? ORDER BY p.seq LIMIT 1), ?, ?::timestamptz, "
                + "?::date, ?, ?, ?, ?, ?, ? FROM " + eventCte + " ON CONFLICT (event_id) DO NOTHING RETURNING 1)";
    }

    /** Binds {@link #cte}'s parameters from {@code index}; returns the next free index. */
    public static int bindCte(PreparedStatement ps, int index, UsageRow u) throws SQLException {
        int i = index;
        ps.setString(i++, u.team());
        ps.setString(i++, u.agent());
        ps.setString(i++, u.turnId());
        ps.setString(i++, u.team());
        ps.setString(i++, u.turnId());
        ps.setString(i++, u.model());
        ps.setString(i++, u.ts().toString());
        ps.setString(i++, LocalDate.ofInstant(u.ts(), ZoneOffset.UTC).toString());
        ps.setLong(i++, u.promptTokens());
        ps.setLong(i++, u.completionTokens());
        ps.setLong(i++, u.cachedTokens());
        ps.setDouble(i++, u.costUsd());
        ps.setLong(i++, u.cacheWriteTokens());
        ps.setBoolean(i++, u.priceKnown());
        return i;
    }

    /**
     * Records the usage of a newly stored event in the caller's transaction: an {@code assistant_message} gets its
     * row (the lead's prompt of the turn attached when the prompt names the turn), any other event nothing. Returns the
     * row if this call inserted it (empty for another type or a row already there).
     */
    public static Optional<UsageRow> record(Connection c, Event e) throws SQLException {
        Optional<UsageRow> row = UsageRow.of(e);
        if (row.isEmpty()) {
            return row;
        }
        UsageRow u = row.get();
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            Sql.bind(ps, u.eventId(), u.team(), u.agent(), u.turnId(), u.team(), u.turnId(), u.model());
            ps.setTimestamp(8, Timestamp.from(u.ts()));
            ps.setDate(9, Date.valueOf(LocalDate.ofInstant(u.ts(), ZoneOffset.UTC)));
            ps.setLong(10, u.promptTokens());
            ps.setLong(11, u.completionTokens());
            ps.setLong(12, u.cachedTokens());
            ps.setDouble(13, u.costUsd());
            ps.setLong(14, u.cacheWriteTokens());
            ps.setBoolean(15, u.priceKnown());
            return ps.executeUpdate() == 1 ? row : Optional.empty();
        }
    }

    private static final String SUMS = "count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0),"
            + " coalesce(sum(cached_tokens), 0), coalesce(sum(cost_usd), 0), coalesce(sum(cache_write_tokens), 0),"
            + " count(*) FILTER (WHERE NOT price_known),"
            + " coalesce(array_agg(DISTINCT coalesce(model, 'unknown')) FILTER (WHERE NOT price_known), '{}')";

    /**
     * The team's usage grouped {@code by}, from {@code since} (a UTC day, inclusive; null = all) and of one
     * {@code agent} (null = all): agents by name, turns by their first call, days in order.
     */
    public List<Group> report(String team, By by, LocalDate since, String agent) {
        Objects.requireNonNull(by, "by");
        String group = switch (by) {
            case AGENT -> "agent";
            case TURN -> "agent, coalesce(turn_id, '')";
            case DAY -> "day";
        };
        String order = switch (by) {
            case AGENT -> "agent";
            case TURN -> "min(ts), agent";
            case DAY -> "day";
        };
        String sql = "SELECT " + group + ", " + SUMS + " FROM lead.usage WHERE team = ?"
                + (since == null ? "" : " AND day >= ?") + (agent == null ? "" : " AND agent = ?")
                + " GROUP BY " + group + " ORDER BY " + order;
        return Sql.inTransaction(ds, "read usage of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int i = 1;
                ps.setString(i++, team);
                if (since != null) {
                    ps.setDate(i++, Date.valueOf(since));
                }
                if (agent != null) {
                    ps.setString(i, agent);
                }
                List<Group> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(switch (by) {
                            case AGENT -> new Group(rs.getString(1), rs.getString(1), null, null, totals(rs, 2));
                            case TURN -> {
                                String turn = rs.getString(2).isEmpty() ? null : rs.getString(2);
                                yield new Group(turn == null ? "-" : turn, rs.getString(1), turn, null, totals(rs, 3));
                            }
                            case DAY -> {
                                LocalDate d = rs.getDate(1).toLocalDate();
                                yield new Group(d.toString(), null, null, d, totals(rs, 2));
                            }
                        });
                    }
                }
                return out;
            }
        });
    }

    /** Everything the team's agents used from {@code since} on (e.g. the start of the UTC day, for a daily budget). */
    public Usage teamUsageSince(String team, Instant since) {
        return Sql.inTransaction(ds, "read usage of team " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + SUMS + " FROM lead.usage WHERE team = ? AND ts >= ?")) {
                ps.setString(1, team);
                ps.setTimestamp(2, Timestamp.from(since));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return totals(rs, 1).asUsage();
                }
            }
        });
    }

    private static UsageTotals totals(ResultSet rs, int first) throws SQLException {
        Array models = rs.getArray(first + 7);
        List<String> unpriced = models == null ? List.of() : List.of((String[]) models.getArray());
        return new UsageTotals(rs.getLong(first), rs.getLong(first + 1), rs.getLong(first + 2), rs.getLong(first + 3),
                rs.getDouble(first + 4), rs.getLong(first + 5), rs.getLong(first + 6), unpriced);
    }
}

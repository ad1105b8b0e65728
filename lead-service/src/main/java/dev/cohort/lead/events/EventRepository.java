package dev.cohort.lead.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.host.store.EventsClause;
import dev.cohort.lead.usage.UsageMetrics;
import dev.cohort.lead.usage.UsageRepository;
import dev.cohort.lead.usage.UsageRow;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Optional;

/**
 * The per-team event log in {@code lead.events}, sequenced through {@code lead.event_seq}. A newly stored teammate
 * event also updates {@code lead.roster} in the same transaction ({@code RosterRepository.project}), and a newly
 * stored {@code assistant_message} (any agent's) adds its row to the usage ledger {@code lead.usage}
 * ({@code UsageRepository.record}), counted in the usage metrics once committed.
 */
@ApplicationScoped
public class EventRepository {

    @Inject
    AgroalDataSource ds;

    @Inject
    UsageMetrics usageMetrics;

    /** Events one group commit stores at most (the rest go in the next). */
    static final int MAX_BATCH = 256;

    /** One group-commit queue per team (appends of different teams never wait for each other). */
    private final ConcurrentHashMap<String, TeamAppender> appenders = new ConcurrentHashMap<>();

    /**
     * Stores an event with the team's next sequence number and returns it with that number (or, for an id already
     * stored, the stored form). Appends of one team are serialized by the row lock of its counter, held until the
     * commit: so concurrent appends of one team are <em>group-committed</em>: the caller that finds no write in
     * progress writes every event queued meanwhile in one transaction (one counter bump, N inserts, one commit) and
     * each caller gets its own result. Alone, an append is one transaction of its own ({@link #appendOne}); under
     * load (many teammates claiming, events of many agents) the counter's lock is taken once per batch, not per event.
     * Numbers follow the queue's order, so an event recorded after another one returned has a higher seq.
     */
    public Event append(Event e) {
        return appenders.computeIfAbsent(e.team(), t -> new TeamAppender()).append(e);
    }

    /** The leader/follower group commit of one team: {@code writing} false ⇒ the queue is empty. */
    private final class TeamAppender {
        private final ArrayDeque<Pending> queue = new ArrayDeque<>();
        private boolean writing;

        Event append(Event e) {
            Pending mine = new Pending(e);
            boolean leader;
            synchronized (this) {
                queue.add(mine);
                leader = !writing;
                writing = true;
            }
            if (!leader && !mine.awaitDoneOrPromoted()) {
                return mine.result();
            }
            // the leader: its own event is at the head of the queue, so it is in this batch
            List<Pending> batch = new ArrayList<>();
            synchronized (this) {
                while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
                    batch.add(queue.poll());
                }
            }
            try {
                write(batch);
            } finally {
                Pending next;
                synchronized (this) {
                    next = queue.peek();
                    writing = next != null;
                }
                if (next != null) {
                    next.promote(); // the next batch is written by its first caller
                }
            }
            return mine.result();
        }
    }

    /** A queued append: done with a result or an error, or promoted to write the next batch. */
    private static final class Pending {
        final Event event;
        private Event stored;
        private RuntimeException error;
        private boolean done;
        private boolean promoted;

        Pending(Event event) {
            this.event = event;
        }

        synchronized void finish(Event stored, RuntimeException error) {
            this.stored = stored;
            this.error = error;
            this.done = true;
            notifyAll();
        }

        synchronized void promote() {
            promoted = true;
            notifyAll();
        }

        /** Waits (not interruptibly: others depend on a promoted caller) and returns true when promoted. */
        synchronized boolean awaitDoneOrPromoted() {
            boolean interrupted = false;
            while (!done && !promoted) {
                try {
                    wait();
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return !done;
        }

        synchronized Event result() {
            if (error != null) {
                throw error;
            }
            return stored;
        }
    }

    /** Writes a batch: one transaction when it has several new events; each alone when it has one or a duplicate. */
    private void write(List<Pending> batch) {
        if (batch.size() > 1) {
            try {
                List<Event> stored = appendBatch(batch.stream().map(p -> p.event).toList());
                if (stored != null) {
                    for (int i = 0; i < batch.size(); i++) {
                        batch.get(i).finish(stored.get(i), null);
                    }
                    return;
                }
            } catch (RuntimeException ex) {
                // one bad event must not fail the others: each is written alone below and gets its own answer
            }
        }
        for (Pending p : batch) {
            try {
                p.finish(appendOne(p.event), null);
            } catch (RuntimeException ex) {
                p.finish(null, ex);
            }
        }
    }

    /**
     * Several new events of one team in one transaction: the counter bumped by their number, their rows inserted (one
     * statement), the roster projected (one statement for a run of {@code task_claimed}), one commit. Returns null (and stores nothing) if one of them is already stored or two share an
     * id: the caller then writes them one at a time, which answers duplicates with the stored form.
     */
    public List<Event> appendBatch(List<Event> batch) {
        String team = batch.getFirst().team();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                Appended a = appendStatement(c, team, batch);
                if (a.inserted() < batch.size()) {
                    c.rollback(); // a duplicate: nothing of this batch stays, the counter included
                    return null;
                }
                List<Event> out = sequenced(batch, team, a.last() - batch.size());
                RosterRepository.projectAll(c, out);
                List<UsageRow> usage = a.usage();
                c.commit();
                usage.forEach(usageMetrics::count); // counted once committed (a rolled-back batch counts nothing)
                return out;
            } catch (SQLException | RuntimeException ex) {
                c.rollback();
                throw ex;
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot store " + batch.size() + " events of team " + team, ex);
        }
    }

    /**
     * New events of one team stored in the caller's transaction (an agent's step save): the team's counter bumped by
     * their number (its row lock, held until the caller commits, orders them with every other append of the team),
     * their rows inserted, the roster projected. Nothing is committed here; the caller announces them after its
     * commit. An id already stored fails the call (the caller's transaction is then rolled back whole): these are
     * events just made, which a failed transaction never stored.
     */
    public List<Event> appendIn(Connection c, List<Event> events) throws SQLException {
        if (events.isEmpty()) {
            return List.of();
        }
        String team = events.getFirst().team();
        Appended a = appendStatement(c, team, events);
        if (a.inserted() < events.size()) {
            throw new IllegalStateException(events.size() + " events of team " + team + " hold an id already stored");
        }
        List<Event> out = sequenced(events, team, a.last() - events.size());
        RosterRepository.projectAll(c, out);
        return out; // the usage rows are counted by EventService.committed after the commit
    }

    /**
     * New events of one team stored by an agent's save statement ({@code PgAgentStore}, {@link
     * dev.cohort.host.store.EventsClause}): the same counter bump, rows and usage row as {@link #appendIn}, as CTEs that
     * write only when the save's fenced update {@code u} matched. If a row was not inserted (an id already stored) the
     * statement fails with a division by zero, so nothing of it stays, the save included: as {@link #appendIn}'s
     * exception rolls back its transaction. Null (the caller then uses {@link #appendIn} in a transaction) for events
     * the roster projects, or several of which one carries usage.
     */
    public EventsClause clause(List<Event> events) {
        if (events.isEmpty()) {
            return null;
        }
        String team = events.getFirst().team();
        for (Event e : events) {
            if (!team.equals(e.team()) || RosterRepository.projects(e)
                    || events.size() > 1 && UsageRow.of(e).isPresent()) {
                return null;
            }
        }
        Optional<UsageRow> usage = events.size() == 1
                ? UsageRow.of(events.getFirst()) : Optional.empty();
        int n = events.size();
        return new EventsClause() {
            @Override
            public String ctes() {
                return n == 1 ? (usage.isPresent() ? CLAUSE_ONE_WITH_USAGE : CLAUSE_ONE) : CLAUSE_MANY;
            }

            @Override
            public String columns() {
                return CLAUSE_COLUMNS; // the usage CTE runs whether read or not (every data-modifying CTE does)
            }

            @Override
            public int bind(PreparedStatement ps, int index) throws SQLException {
                int i = index;
                ps.setString(i++, team);
                ps.setLong(i++, n);
                i = bindRows(ps, i, team, events);
                if (usage.isPresent()) {
                    i = UsageRepository.bindCte(ps, i, usage.get());
                }
                ps.setLong(i++, n); // the guard's count
                return i;
            }

            @Override
            public List<Event> read(ResultSet rs, int column) throws SQLException {
                return sequenced(events, team, rs.getLong(column) - n);
            }
        };
    }

    /** The rows' parameters of {@link #CLAUSE_ONE} or {@link #CLAUSE_MANY} (after the counter's two). */
    private static int bindRows(PreparedStatement ps, int index, String team, List<Event> events) throws SQLException {
        int i = index;
        ps.setString(i++, team);
        if (events.size() == 1) {
            Event e = events.getFirst();
            ps.setString(i++, e.id());
            ps.setString(i++, e.agent());
            ps.setString(i++, storedTs(e));
            ps.setString(i++, e.type().wire());
            ps.setString(i++, e.promptId());
            ps.setString(i++, Json.write(e.data()));
            return i;
        }
        int n = events.size();
        String[] ids = new String[n];
        String[] agents = new String[n];
        String[] ts = new String[n];
        String[] types = new String[n];
        String[] promptIds = new String[n];
        String[] data = new String[n];
        for (int k = 0; k < n; k++) {
            Event e = events.get(k);
            ids[k] = e.id();
            agents[k] = e.agent();
            ts[k] = storedTs(e);
            types[k] = e.type().wire();
            promptIds[k] = e.promptId();
            data[k] = Json.write(e.data());
        }
        ps.setLong(i++, n);
        Connection c = ps.getConnection();
        ps.setArray(i++, c.createArrayOf("text", ids));
        ps.setArray(i++, c.createArrayOf("text", agents));
        ps.setArray(i++, c.createArrayOf("text", ts));
        ps.setArray(i++, c.createArrayOf("text", types));
        ps.setArray(i++, c.createArrayOf("text", promptIds));
        ps.setArray(i++, c.createArrayOf("text", data));
        return i;
    }

    /** What one {@link #appendStatement} did: the team's counter after it, the event rows and usage rows it inserted. */
    private record Appended(long last, int inserted, List<UsageRow> usage) {
    }

    /**
     * The team's counter bumped by the number of {@code events}, their rows inserted under the numbers it hands out,
     * and an {@code assistant_message}'s usage row: <b>one statement</b> (data-modifying CTEs, each run once, in the
     * statement's order of dependence), where they were three round trips. Nothing is committed here; the counter's row
     * lock is held until the caller's commit, which orders the team's appends. A row whose id is already stored is
     * skipped ({@code ON CONFLICT DO NOTHING}), so {@code inserted} below the number of events tells the caller to roll
     * back (the counter would otherwise keep a gap). A lone event carries its usage row in the statement (inserted only
     * with the event's row); several events get theirs by one statement each, when all were inserted (rare: a group
     * commit under load).
     */
    private static Appended appendStatement(Connection c, String team, List<Event> events) throws SQLException {
        for (Event e : events) {
            if (!e.team().equals(team)) {
                throw new IllegalArgumentException("the events stored together are of one team");
            }
        }
        int n = events.size();
        Optional<UsageRow> one = n == 1 ? UsageRow.of(events.getFirst())
                : Optional.empty();
        long last;
        int inserted;
        try (PreparedStatement ps = c.prepareStatement(n > 1 ? APPEND_MANY : one.isPresent() ? APPEND_ONE_WITH_USAGE
                : APPEND_ONE)) {
            ps.setString(1, team);
            ps.setLong(2, n);
            int i = bindRows(ps, 3, team, events);
            if (one.isPresent()) {
                UsageRepository.bindCte(ps, i, one.get());
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                last = rs.getLong(1);
                inserted = rs.getInt(2);
                if (one.isPresent()) {
                    return new Appended(last, inserted, rs.getInt(3) == 1 ? List.of(one.get()) : List.of());
                }
            }
        }
        List<UsageRow> usage = new ArrayList<>();
        if (inserted == n && n > 1) {
            for (Event e : events) {
                UsageRepository.record(c, e).ifPresent(usage::add);
            }
        }
        return new Appended(last, inserted, usage);
    }

    /**
     * The event's {@code ts} as the column keeps it, in ISO-8601 with {@code Z}: rounded to the microsecond half up
     * here (as {@code EventService.asStored} rounds what it announces), so PostgreSQL's own rounding of a finer
     * fraction never decides it.
     */
    private static String storedTs(Event e) {
        Instant ts = e.ts();
        Instant micros = ts.truncatedTo(ChronoUnit.MICROS);
        return (ts.getNano() % 1000 >= 500 ? micros.plusNanos(1000) : micros).toString();
    }

    /** The team's counter bumped by a count: its new value, the last number handed out. */
    private static final String BUMP = "s AS (INSERT INTO lead.event_seq (team, seq) VALUES (?, ?) ON CONFLICT (team) "
            + "DO UPDATE SET seq = lead.event_seq.seq + EXCLUDED.seq RETURNING seq)";

    /** One event's row, numbered by the counter {@code s}; its id returned when it was inserted. */
    private static final String APPEND_ONE_EVENT_CTE = "e AS (INSERT INTO lead.events (team, seq, id, agent, ts, type, "
            + "prompt_id, data) SELECT ?, s.seq, ?, ?, ?::timestamptz, ?, ?, ?::jsonb FROM s ON CONFLICT (id) DO NOTHING "
            + "RETURNING id)";

    /** Several events' rows, numbered in their order ({@code WITH ORDINALITY}) up to the counter {@code s}. */
    private static final String APPEND_MANY_EVENTS_CTE = "e AS (INSERT INTO lead.events (team, seq, id, agent, ts, type, "
            + "prompt_id, data) SELECT ?, s.seq - ? + r.ord, r.id, r.agent, r.ts::timestamptz, r.type, r.prompt_id, "
            + "r.data::jsonb FROM s, unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY "
            + "AS r(id, agent, ts, type, prompt_id, data, ord) ON CONFLICT (id) DO NOTHING RETURNING 1)";

    private static final String APPEND_ONE = "WITH " + BUMP + ", " + APPEND_ONE_EVENT_CTE
            + " SELECT s.seq, (SELECT count(*) FROM e)::int FROM s";

    private static final String APPEND_ONE_WITH_USAGE = "WITH " + BUMP + ", " + APPEND_ONE_EVENT_CTE + ", "
            + UsageRepository.cte("e")
            + " SELECT s.seq, (SELECT count(*) FROM e)::int, (SELECT count(*) FROM g)::int FROM s";

    private static final String APPEND_MANY = "WITH " + BUMP + ", " + APPEND_MANY_EVENTS_CTE
            + " SELECT s.seq, (SELECT count(*) FROM e)::int FROM s";

    /** The counter bumped only when the save's fenced update {@code u} matched. */
    private static final String CLAUSE_BUMP = ", s AS (INSERT INTO lead.event_seq (team, seq) SELECT ?, ? FROM u "
            + "ON CONFLICT (team) DO UPDATE SET seq = lead.event_seq.seq + EXCLUDED.seq RETURNING seq)";

    private static final String CLAUSE_ONE = CLAUSE_BUMP + ", " + APPEND_ONE_EVENT_CTE;

    private static final String CLAUSE_ONE_WITH_USAGE = CLAUSE_ONE + ", " + UsageRepository.cte("e");

    private static final String CLAUSE_MANY = CLAUSE_BUMP + ", " + APPEND_MANY_EVENTS_CTE;

    /**
     * The counter's new value, divided by 1 when every row was inserted and by 0 (an error: the whole statement is
     * undone) when one was not. The divisor is a subquery, so the planner cannot fold it into an error up front.
     */
    private static final String CLAUSE_COLUMNS = ", (SELECT seq FROM s) / (CASE WHEN (SELECT count(*) FROM e) = ? "
            + "THEN 1 ELSE 0 END)";

    /** The guard of {@link #CLAUSE_COLUMNS} over a statement of its own ({@link #appendAlone}). */
    private static final String ALONE_SEQ = " SELECT s.seq / (CASE WHEN (SELECT count(*) FROM e) = 1 THEN 1 ELSE 0 END)";

    private static final String APPEND_ALONE = "WITH " + BUMP + ", " + APPEND_ONE_EVENT_CTE + ALONE_SEQ + " FROM s";

    private static final String APPEND_ALONE_WITH_USAGE = "WITH " + BUMP + ", " + APPEND_ONE_EVENT_CTE + ", "
            + UsageRepository.cte("e") + ALONE_SEQ + ", (SELECT count(*) FROM g)::int FROM s";

    /** {@code events} numbered {@code before + 1, before + 2, …}; each must be of {@code team}. */
    private static List<Event> sequenced(List<Event> events, String team, long before) {
        List<Event> out = new ArrayList<>(events.size());
        long seq = before;
        for (Event e : events) {
            if (!e.team().equals(team)) {
                throw new IllegalArgumentException("the events stored together are of one team");
            }
            out.add(e.withSeq(++seq));
        }
        return out;
    }

    /**
     * One event in its own transaction: the upsert on {@code event_seq} row-locks the team's counter, so concurrent
     * appends for one team get distinct, gap-free numbers.
     * An event whose id is already stored is not stored again (redelivery): its insert does nothing, the transaction
     * is rolled back (so the counter keeps no gap) and the stored form is returned. One statement and the commit for a
     * new event ({@link #appendStatement}), no read first: duplicates are the rare case.
     */
    Event appendOne(Event e) {
        if (!RosterRepository.projects(e)) {
            Event alone = appendAlone(e);
            if (alone != null) {
                return alone;
            }
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                Appended a = appendStatement(c, e.team(), List.of(e));
                if (a.inserted() == 0) {
                    c.rollback(); // the counter bump too
                    Optional<Event> existing = findById(c, e.id());
                    c.commit();
                    return existing.orElseThrow(() -> new IllegalStateException("event " + e.id() + " conflicted but is not stored"));
                }
                // the roster is a projection of the teammates' events, kept in step by the transaction that stores them
                RosterRepository.project(c, e);
                // the usage ledger too: one row per assistant_message, stored by the same statement as the event
                List<UsageRow> usage = a.usage();
                c.commit();
                usage.forEach(usageMetrics::count);
                return e.withSeq(a.last());
            } catch (SQLException | RuntimeException ex) {
                c.rollback();
                throw ex;
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot store event " + e.type() + " of team " + e.team(), ex);
        }
    }

    /**
     * A new event the roster does not project, as {@link #appendOne} stores it, in one statement in auto-commit: the
     * counter, the row and the usage row, one round trip with no {@code COMMIT} after it. The counter's new value is
     * divided by 0 when the row was not inserted (an id already stored), which fails the statement and undoes it whole,
     * counter included; null then (and for a connection not in auto-commit), and the caller takes the transaction's
     * path, which answers a duplicate with its stored form.
     */
    private Event appendAlone(Event e) {
        Optional<UsageRow> usage = UsageRow.of(e);
        try (Connection c = ds.getConnection()) {
            if (!c.getAutoCommit()) {
                return null;
            }
            try (PreparedStatement ps = c.prepareStatement(usage.isPresent() ? APPEND_ALONE_WITH_USAGE : APPEND_ALONE)) {
                ps.setString(1, e.team());
                ps.setLong(2, 1);
                int i = bindRows(ps, 3, e.team(), List.of(e));
                if (usage.isPresent()) {
                    UsageRepository.bindCte(ps, i, usage.get());
                }
                long seq;
                boolean usageInserted;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    seq = rs.getLong(1);
                    usageInserted = usage.isPresent() && rs.getInt(2) == 1;
                }
                if (usageInserted) {
                    usageMetrics.count(usage.get());
                }
                return e.withSeq(seq);
            } catch (SQLException ex) {
                if (DIVISION_BY_ZERO.equals(ex.getSQLState())) {
                    return null; // its id is stored already: nothing of the statement stayed
                }
                throw ex;
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot store event " + e.type() + " of team " + e.team(), ex);
        }
    }

    private static final String DIVISION_BY_ZERO = "22012";

    /** The team's last assigned seq (0 before its first event): one primary-key read of {@code event_seq}. */
    public long lastSeq(String team) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT seq FROM lead.event_seq WHERE team = ?")) {
            ps.setString(1, team);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot read the last event seq of team " + team, ex);
        }
    }

    /** The {@code turn_completed} event of the lead's turn {@code turnId}, if it ended. */
    public Optional<Event> turnCompleted(String team, String turnId) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT id, team, agent, seq, ts, type, prompt_id, data::text"
                        + " FROM lead.events WHERE team = ? AND type = 'turn_completed' AND data->>'turnId' = ?"
                        + " ORDER BY seq DESC LIMIT 1")) {
            Sql.bind(ps, team, turnId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot read the end of turn " + turnId + " of team " + team, ex);
        }
    }

    /** Events of a team with {@code seq > after}, in order, at most {@code limit}. */
    public List<Event> after(String team, long after, int limit) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id, team, agent, seq, ts, type, prompt_id, data::text FROM lead.events WHERE team = ? AND seq > ? ORDER BY seq LIMIT ?")) {
            Sql.bind(ps, team, (long) after, limit);
            try (ResultSet rs = ps.executeQuery()) {
                List<Event> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(row(rs));
                }
                return out;
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot read events of team " + team, ex);
        }
    }

    private static Optional<Event> findById(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT id, team, agent, seq, ts, type, prompt_id, data::text FROM lead.events WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    private static Event row(ResultSet rs) throws SQLException {
        try {
            return new Event(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getTimestamp(5).toInstant(),
                    EventType.of(rs.getString(6)), rs.getString(7), Json.MAPPER.readTree(rs.getString(8)));
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException("corrupt event data in the store", ex);
        }
    }
}

package dev.cohort.lead.persistence;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The per-team event log in {@code lead.events}, sequenced through {@code lead.event_seq}. A newly stored teammate
 * event also updates {@code lead.roster} in the same transaction ({@code RosterRepository.project}).
 */
@ApplicationScoped
public class EventRepository {

    @Inject
    AgroalDataSource ds;

    /**
     * Stores an event with the team's next sequence number, in one transaction: the upsert on {@code event_seq}
     * row-locks the team's counter, so concurrent appends for one team get distinct, gap-free numbers.
     * An event whose id is already stored is not stored again (redelivery): its insert does nothing, the transaction
     * is rolled back (so the counter keeps no gap) and the stored form is returned. Two statements for a new event,
     * no read first: duplicates are the rare case.
     */
    public Event append(Event e) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                long seq;
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO lead.event_seq (team, seq) VALUES (?, 1) "
                                + "ON CONFLICT (team) DO UPDATE SET seq = lead.event_seq.seq + 1 RETURNING seq")) {
                    ps.setString(1, e.team());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        seq = rs.getLong(1);
                    }
                }
                int inserted;
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO lead.events (team, seq, id, agent, ts, type, data) VALUES (?, ?, ?, ?, ?, ?, ?::jsonb) "
                                + "ON CONFLICT (id) DO NOTHING")) {
                    ps.setString(1, e.team());
                    ps.setLong(2, seq);
                    ps.setString(3, e.id());
                    ps.setString(4, e.agent());
                    ps.setTimestamp(5, Timestamp.from(e.ts()));
                    ps.setString(6, e.type().wire());
                    ps.setString(7, Json.write(e.data()));
                    inserted = ps.executeUpdate();
                }
                if (inserted == 0) {
                    c.rollback(); // the counter bump too
                    Optional<Event> existing = findById(c, e.id());
                    c.commit();
                    return existing.orElseThrow(() -> new IllegalStateException("event " + e.id() + " conflicted but is not stored"));
                }
                // the roster is a projection of the teammates' events, kept in step by the transaction that stores them
                dev.cohort.lead.teammates.persistence.RosterRepository.project(c, e);
                c.commit();
                return e.withSeq(seq);
            } catch (SQLException | RuntimeException ex) {
                c.rollback();
                throw ex;
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("cannot store event " + e.type() + " of team " + e.team(), ex);
        }
    }

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

    /** Events of a team with {@code seq > after}, in order, at most {@code limit}. */
    public List<Event> after(String team, long after, int limit) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id, team, agent, seq, ts, type, data::text FROM lead.events WHERE team = ? AND seq > ? ORDER BY seq LIMIT ?")) {
            ps.setString(1, team);
            ps.setLong(2, after);
            ps.setInt(3, limit);
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
                "SELECT id, team, agent, seq, ts, type, data::text FROM lead.events WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    private static Event row(ResultSet rs) throws SQLException {
        try {
            return new Event(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getTimestamp(5).toInstant(),
                    EventType.of(rs.getString(6)), Json.MAPPER.readTree(rs.getString(7)));
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException("corrupt event data in the store", ex);
        }
    }
}

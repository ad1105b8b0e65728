package dev.cohort.lead.protocols;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Optional;

/**
 * {@code lead.protocols}: shutdown and plan-approval requests. Every transition is one conditional
 * {@code UPDATE … WHERE id AND team AND type AND status = 'pending' AND <the answering agent>}; when it changes no row,
 * {@link #find} tells the caller why (unknown id, wrong type, wrong agent, already decided).
 */
@ApplicationScoped
public class ProtocolRepository {

    public static final String SHUTDOWN = "shutdown";
    public static final String PLAN_APPROVAL = "plan_approval";
    public static final String PENDING = "pending";
    public static final String APPROVED = "approved";
    public static final String REJECTED = "rejected";
    public static final String EXPIRED = "expired";

    /** One request. */
    public record ProtocolRow(String id, String team, String type, String sender, String target, String status,
            JsonNode payload, String feedback, String decidedBy, Instant createdAt, Instant decidedAt, Instant deadline) {

        public boolean pending() {
            return PENDING.equals(status);
        }
    }

    private static final String COLUMNS = "id, team, type, sender, target, status, payload::text, feedback, decided_by, "
            + "created_at, decided_at, deadline";

    @Inject
    AgroalDataSource ds;

    /**
     * A new pending request, due {@code timeout} after its {@code created_at} (null: no deadline); false when one with
     * this id exists (a repeated call: nothing changes). The deadline is computed from the same {@code now()} as
     * {@code created_at}, so an expired request was always pending for at least its timeout.
     */
    public boolean insert(String id, String team, String type, String sender, String target, JsonNode payload,
            Duration timeout) {
        return Sql.inTransaction(ds, "record protocol request " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.protocols (id, team, type, sender, target, "
                    + "payload, deadline) VALUES (?, ?, ?, ?, ?, ?::jsonb, now() + ? * interval '1 microsecond') "
                    + "ON CONFLICT (id) DO NOTHING")) {
                Sql.bind(ps, id, team, type, sender, target,
                        Json.write(payload == null ? Json.MAPPER.createObjectNode() : payload));
                if (timeout == null) {
                    ps.setNull(7, Types.BIGINT);
                } else {
                    ps.setLong(7, TimeUnit.NANOSECONDS.toMicros(timeout.toNanos()));
                }
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * The one conditional transition of a pending request to {@code status} by {@code answerer}, who must be its
     * target; empty when no row changed (see {@link #find} for why).
     */
    public Optional<ProtocolRow> decide(String team, String id, String type, String answerer, String status,
            String feedback, String decidedBy) {
        return Sql.inTransaction(ds, "decide protocol request " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.protocols SET status = ?, feedback = ?, "
                    + "decided_by = ?, decided_at = now() WHERE id = ? AND team = ? AND type = ? AND target = ? "
                    + "AND status = 'pending' RETURNING " + COLUMNS)) {
                Sql.bind(ps, status, feedback, decidedBy, id, team, type, answerer);
                return one(ps);
            }
        });
    }

    /** Every pending request past its deadline, expired by one statement (whichever replica's sweep runs it). */
    public List<ProtocolRow> expireDue() {
        return Sql.inTransaction(ds, "expire protocol requests", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.protocols SET status = 'expired', "
                    + "decided_by = 'sweep', decided_at = now(), feedback = 'not answered by its deadline' "
                    + "WHERE status = 'pending' AND deadline < now() RETURNING " + COLUMNS)) {
                return many(ps);
            }
        });
    }

    public Optional<ProtocolRow> find(String team, String id) {
        return Sql.inTransaction(ds, "read protocol request " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.protocols WHERE id = ? "
                    + "AND team = ?")) {
                ps.setString(1, id);
                ps.setString(2, team);
                return one(ps);
            }
        });
    }

    /** The pending request of {@code type} to {@code target}, if any (the newest). */
    public Optional<ProtocolRow> pendingFor(String team, String type, String target) {
        return Sql.inTransaction(ds, "read pending protocol requests", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.protocols WHERE team = ? "
                    + "AND type = ? AND target = ? AND status = 'pending' ORDER BY created_at DESC LIMIT 1")) {
                Sql.bind(ps, team, type, target);
                return one(ps);
            }
        });
    }

    /** The team's requests, oldest first, optionally filtered by status and type. */
    public List<ProtocolRow> list(String team, String status, String type) {
        return Sql.inTransaction(ds, "list protocol requests of " + team, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lead.protocols WHERE team = ? "
                    + "AND (CAST(? AS text) IS NULL OR status = ?) AND (CAST(? AS text) IS NULL OR type = ?) "
                    + "ORDER BY created_at, id")) {
                Sql.bind(ps, team, status, status, type, type);
                return many(ps);
            }
        });
    }

    private static Optional<ProtocolRow> one(PreparedStatement ps) throws SQLException {
        List<ProtocolRow> rows = many(ps);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.getFirst());
    }

    private static List<ProtocolRow> many(PreparedStatement ps) throws SQLException {
        List<ProtocolRow> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new ProtocolRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), Json.MAPPER.readTree(rs.getString(7)), rs.getString(8),
                        rs.getString(9), instant(rs.getTimestamp(10)), instant(rs.getTimestamp(11)),
                        instant(rs.getTimestamp(12))));
            }
        } catch (JsonProcessingException e) {
            throw new SQLException("unreadable protocol payload: " + e.getOriginalMessage(), e);
        }
        return out;
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}

package dev.cohort.lead.web;

import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * The dashboard's one-time login codes ({@code lead.login_codes}, V17), by the SHA-256 of the code only. Times are the
 * database's ({@code now()}), so every replica agrees on expiry.
 */
@ApplicationScoped
public class LoginCodeRepository {

    @Inject
    AgroalDataSource ds;

    /**
     * Stores a new code hash valid for {@code ttl} and returns its expiry; in the same transaction removes rows more
     * than a day past their expiry (the table stays small without a sweeper).
     */
    public Instant add(String codeHash, Duration ttl) {
        return Sql.inTransaction(ds, "add a login code", c -> {
            try (PreparedStatement del = c.prepareStatement(
                    "DELETE FROM lead.login_codes WHERE expires_at < now() - INTERVAL '1 day'")) {
                del.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO lead.login_codes (code_hash, expires_at) "
                    + "VALUES (?, now() + make_interval(secs => ?)) RETURNING expires_at")) {
                ps.setString(1, codeHash);
                ps.setLong(2, ttl.toSeconds());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getObject(1, OffsetDateTime.class).toInstant();
                }
            }
        });
    }

    /**
     * Marks the code used, if it is known, unused and unexpired: one conditional statement, so two requests racing
     * with the same code cannot both succeed. True when this call redeemed it.
     */
    public boolean redeem(String codeHash) {
        return Sql.inTransaction(ds, "redeem a login code", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE lead.login_codes SET used_at = now() "
                    + "WHERE code_hash = ? AND used_at IS NULL AND expires_at > now()")) {
                ps.setString(1, codeHash);
                return ps.executeUpdate() == 1;
            }
        });
    }
}

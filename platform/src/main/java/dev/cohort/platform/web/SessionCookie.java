package dev.cohort.platform.web;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The dashboard's login cookie ({@value #NAME}): {@code v1.<expiry epoch seconds>.<HMAC-SHA256 of the expiry, keyed
 * with the API token>}. Stateless, so any replica that knows the token accepts it; it never contains the token, and
 * changing the token invalidates every cookie. Pure functions, no clock of its own.
 */
public final class SessionCookie {

    /** The cookie's name. */
    public static final String NAME = "cohort_session";

    private SessionCookie() {
    }

    /** A cookie value valid until {@code now + ttl}, signed with {@code token}. */
    public static String issue(String token, Instant now, Duration ttl) {
        long exp = now.plus(ttl).getEpochSecond();
        return "v1." + exp + "." + mac(token, exp);
    }

    /** True when {@code value} was issued with {@code token} and has not expired at {@code now}. */
    public static boolean valid(String value, String token, Instant now) {
        if (value == null || token == null || token.isBlank()) {
            return false;
        }
        String[] parts = value.split("\\.", -1);
        if (parts.length != 3 || !"v1".equals(parts[0])) {
            return false;
        }
        long exp;
        try {
            exp = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        if (now.getEpochSecond() >= exp) {
            return false;
        }
        return MessageDigest.isEqual(mac(token, exp).getBytes(StandardCharsets.US_ASCII),
                parts[2].getBytes(StandardCharsets.US_ASCII));
    }

    private static String mac(String token, long exp) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(token.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] sig = m.doFinal(("cohort-session:" + exp).getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(sig);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}

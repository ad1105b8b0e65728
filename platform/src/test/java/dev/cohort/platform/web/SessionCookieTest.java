package dev.cohort.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The dashboard's signed login cookie: valid for its token until it expires, and for nothing else. */
class SessionCookieTest {

    static final Instant NOW = Instant.parse("2026-12-02T05:00:00Z");

    @Test
    void aCookieIsValidForItsTokenUntilItExpires() {
        String c = SessionCookie.issue("secret-token", NOW, Duration.ofHours(12));
        assertThat(c).startsWith("v1." + NOW.plus(Duration.ofHours(12)).getEpochSecond() + ".").doesNotContain("secret-token");
        assertThat(SessionCookie.valid(c, "secret-token", NOW)).isTrue();
        assertThat(SessionCookie.valid(c, "secret-token", NOW.plus(Duration.ofHours(12)).minusSeconds(1))).isTrue();
        assertThat(SessionCookie.valid(c, "secret-token", NOW.plus(Duration.ofHours(12)))).isFalse();
    }

    @Test
    void anotherTokenAForgedExpiryOrGarbageIsRefused() {
        String c = SessionCookie.issue("secret-token", NOW, Duration.ofHours(1));
        assertThat(SessionCookie.valid(c, "rotated-token", NOW)).isFalse();
        String[] parts = c.split("\\.");
        assertThat(SessionCookie.valid("v1." + (Long.parseLong(parts[1]) + 3600) + "." + parts[2], "secret-token", NOW)).isFalse();
        assertThat(SessionCookie.valid("v2." + parts[1] + "." + parts[2], "secret-token", NOW)).isFalse();
        assertThat(SessionCookie.valid("v1.notanumber." + parts[2], "secret-token", NOW)).isFalse();
        assertThat(SessionCookie.valid("garbage", "secret-token", NOW)).isFalse();
        assertThat(SessionCookie.valid(null, "secret-token", NOW)).isFalse();
        assertThat(SessionCookie.valid(c, "", NOW)).isFalse();
    }
}

package dev.cohort.lead;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.cohort.lead.web.LoginCodes;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's one-time login codes in this module's one boot (open API: the test profile sets no token, so a
 * redeemed code answers without a cookie; with a token the cookie is cli's {@code DashboardBrowserIT}): issued with
 * 201, redeemed once by {@code POST /api/v1/session {code}}, a second use, an expired or an unknown code refused with
 * the same 401, malformed bodies 400, and only the code's SHA-256 in {@code lead.login_codes}.
 */
@QuarkusTest
class LoginCodeTest {

    static final String REFUSED = "this login link was already used or has expired — run `cohort dashboard` for a new one";

    @Inject
    AgroalDataSource ds;

    @Test
    void aCodeLogsInOnceAndIsThenRefused() {
        String code = issue("");
        redeem(code).then().statusCode(200).body("authenticated", equalTo(true)).body("required", equalTo(false));
        redeem(code).then().statusCode(401).contentType(containsString("application/problem+json"))
                .body("detail", equalTo(REFUSED));
    }

    @Test
    void anExpiredCodeIsRefusedAndAnUnknownOneLikewise() throws SQLException {
        String code = issue("{\"ttlSeconds\": 600}");
        // expiry is the database's clock: move the row's expiry into the past rather than wait for it
        update("UPDATE lead.login_codes SET expires_at = now() - INTERVAL '1 second' WHERE code_hash = ?", LoginCodes.hash(code));
        redeem(code).then().statusCode(401).body("detail", equalTo(REFUSED));
        assertThat(usedAt(LoginCodes.hash(code))).as("an expired code is not marked used").isNull();
        redeem(LoginCodes.newCode()).then().statusCode(401).body("detail", equalTo(REFUSED));
    }

    @Test
    void theIssuedCodeIsA256BitBase64UrlValueWithTheRequestedLifetime() {
        Instant before = Instant.now();
        Response r = given().contentType("application/json").body("{\"ttlSeconds\": 120}").post("/api/v1/login-codes");
        r.then().statusCode(201).body("required", equalTo(false));
        assertThat(r.jsonPath().getString("code")).matches("[A-Za-z0-9_-]{43}");
        Instant expires = Instant.parse(r.jsonPath().getString("expiresAt"));
        assertThat(expires).isBetween(before.plusSeconds(110), Instant.now().plusSeconds(130));
        // no body: the configured default (15 min)
        Response d = given().post("/api/v1/login-codes");
        d.then().statusCode(201);
        assertThat(Duration.between(Instant.now(), Instant.parse(d.jsonPath().getString("expiresAt"))))
                .isBetween(Duration.ofMinutes(14), Duration.ofMinutes(16));
    }

    @Test
    void onlyTheHashOfACodeIsStored() throws SQLException {
        String code = issue("");
        List<String> hashes = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT code_hash, used_at FROM lead.login_codes");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                hashes.add(rs.getString(1));
            }
        }
        assertThat(hashes).contains(LoginCodes.hash(code)).doesNotContain(code).allMatch(h -> h.matches("[0-9a-f]{64}"));
        assertThat(LoginCodes.hash(code)).isEqualTo(sha256Hex(code));
        assertThat(usedAt(LoginCodes.hash(code))).isNull();
        redeem(code).then().statusCode(200);
        assertThat(usedAt(LoginCodes.hash(code))).isNotNull();
    }

    @Test
    void malformedBodiesAreBadRequests() {
        String code = issue("");
        // both a token and a code, or neither
        given().contentType("application/json").body("{\"token\":\"t\",\"code\":\"" + code + "\"}").post("/api/v1/session")
                .then().statusCode(400).body("detail", containsString("not both"));
        given().contentType("application/json").body("{\"code\":\"  \"}").post("/api/v1/session")
                .then().statusCode(400).body("detail", containsString("{\"code\""));
        given().contentType("application/json").body("{\"code\":\"" + "x".repeat(201) + "\"}").post("/api/v1/session")
                .then().statusCode(400).body("detail", containsString("not a login code"));
        given().contentType("application/json").body("not json").post("/api/v1/session").then().statusCode(400);
        // the refused attempts did not use the code up
        redeem(code).then().statusCode(200);
        // login-codes: a lifetime out of bounds, not a number, an unknown field, not an object, not JSON
        for (String bad : List.of("{\"ttlSeconds\":0}", "{\"ttlSeconds\":86401}", "{\"ttlSeconds\":\"60\"}",
                "{\"ttlSeconds\":1.5}", "{\"ttl\":60}", "[60]", "{")) {
            given().contentType("application/json").body(bad).post("/api/v1/login-codes")
                    .then().statusCode(400).contentType(containsString("application/problem+json"))
                    .body("detail", containsString("ttlSeconds"));
        }
    }

    private static String issue(String body) {
        var req = given();
        if (!body.isEmpty()) {
            req = req.contentType("application/json").body(body);
        }
        Response r = req.post("/api/v1/login-codes");
        r.then().statusCode(201);
        return r.jsonPath().getString("code");
    }

    private static Response redeem(String code) {
        return given().contentType("application/json").body("{\"code\":\"" + code + "\"}").post("/api/v1/session");
    }

    private void update(String sql, String hash) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, hash);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private Object usedAt(String hash) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT used_at FROM lead.login_codes WHERE code_hash = ?")) {
            ps.setString(1, hash);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getObject(1);
            }
        }
    }

    private static String sha256Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

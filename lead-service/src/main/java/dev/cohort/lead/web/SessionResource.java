package dev.cohort.lead.web;

import dev.cohort.platform.web.SessionCookie;
import io.quarkus.logging.Log;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The dashboard's login: {@code POST /api/v1/session {token}} checks the API token once, or {@code {code}} redeems a
 * one-time login code ({@link LoginCodeResource}, the link {@code cohort up} prints), and answers with a same-site,
 * HttpOnly {@link SessionCookie} that the bearer filter accepts in place of the header (the browser's EventSource
 * cannot send headers, and a token in a URL would land in logs). {@code DELETE} clears it,
 * {@code GET} says whether a login is needed and whether the caller has one. The path is open in the bearer filter
 * ({@code cohort.web.bearer."/api/v1/session"} maps to an unset key).
 */
@Path("/api/v1/session")
@Produces(MediaType.APPLICATION_JSON)
public class SessionResource {

    /** A working day: long enough not to nag, short enough that a forgotten laptop does not stay logged in. */
    @ConfigProperty(name = "cohort.dashboard.session-ttl", defaultValue = "PT12H")
    Duration ttl;

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    /** Said for a code that is unknown, used or expired (the three are not told apart). */
    static final String CODE_REFUSED = "this login link was already used or has expired — run `cohort dashboard` for a new one";

    /** Codes are 43 characters; anything much longer is not one, and is not hashed. */
    static final int MAX_CODE_LENGTH = 200;

    @Inject
    LoginCodeRepository codes;

    /** The login body: the API token, or a one-time login code. */
    public record Login(String token, String code) {
    }

    @GET
    public Map<String, Object> status(@CookieParam(SessionCookie.NAME) String cookie) {
        Optional<String> token = token();
        boolean in = token.isEmpty() || SessionCookie.valid(cookie, token.get(), Instant.now());
        return Map.of("required", token.isPresent(), "authenticated", in);
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response login(Login body) {
        boolean hasToken = body != null && body.token() != null && !body.token().isBlank();
        boolean hasCode = body != null && body.code() != null && !body.code().isBlank();
        if (hasToken == hasCode) {
            throw ApiException.badRequest("body must be {\"token\": \"<the API token>\"} or {\"code\": \"<a login code>\"}, "
                    + (hasToken ? "not both" : "one of them"));
        }
        if (hasCode && body.code().length() > MAX_CODE_LENGTH) {
            throw ApiException.badRequest("code is not a login code (longer than " + MAX_CODE_LENGTH + " characters)");
        }
        Optional<String> token = token();
        if (hasCode) {
            // one conditional UPDATE: of two requests with the same code, exactly one gets in
            if (!codes.redeem(LoginCodes.hash(body.code().strip()))) {
                Log.info("dashboard login refused: login code unknown, used or expired");
                throw new ApiException(401, "Unauthorized", CODE_REFUSED);
            }
            Log.info("dashboard login with a one-time login code");
        }
        if (token.isEmpty()) {
            // an open API: nothing to log in to, and no cookie to hand out
            return Response.ok(Map.of("required", false, "authenticated", true)).build();
        }
        if (hasToken && !MessageDigest.isEqual(body.token().strip().getBytes(StandardCharsets.UTF_8),
                token.get().getBytes(StandardCharsets.UTF_8))) {
            throw new ApiException(401, "Unauthorized", "wrong API token");
        }
        NewCookie c = new NewCookie.Builder(SessionCookie.NAME).value(SessionCookie.issue(token.get(), Instant.now(), ttl))
                .path("/").httpOnly(true).sameSite(NewCookie.SameSite.STRICT).maxAge((int) ttl.toSeconds()).build();
        return Response.ok(Map.of("required", true, "authenticated", true)).cookie(c).build();
    }

    @DELETE
    public Response logout() {
        NewCookie c = new NewCookie.Builder(SessionCookie.NAME).value("").path("/").httpOnly(true)
                .sameSite(NewCookie.SameSite.STRICT).maxAge(0).build();
        return Response.noContent().cookie(c).build();
    }

    private Optional<String> token() {
        return apiToken.filter(t -> !t.isBlank());
    }
}

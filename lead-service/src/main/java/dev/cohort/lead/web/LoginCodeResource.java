package dev.cohort.lead.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.logging.Log;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code POST /api/v1/login-codes {ttlSeconds?}}: a one-time login code for the dashboard link
 * {@code <lead>/#code=<code>} ({@code cohort up}, {@code cohort dashboard}, {@code cohort demo --keep} print it).
 * Under {@code /api}, so it needs the API token like every call; {@link SessionResource} redeems the code once for
 * the session cookie. Only the code's SHA-256 is stored, and neither the code nor its hash is logged.
 */
@Path("/api/v1/login-codes")
@Produces(MediaType.APPLICATION_JSON)
public class LoginCodeResource {

    /** A day at most: a link is for opening now, not for keeping; a longer-lived login is the session cookie's job. */
    static final long MAX_TTL_SECONDS = 86_400;

    /**
     * 15 minutes: time to read {@code cohort up}'s summary and open the link, short enough that a link left in a
     * terminal's scroll-back or a shared screen is soon useless (a used one is useless at once).
     */
    @ConfigProperty(name = "cohort.dashboard.login-code-ttl", defaultValue = "PT15M")
    Duration defaultTtl;

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    @Inject
    LoginCodeRepository codes;

    @Inject
    ObjectMapper mapper;

    @POST
    public Response create(String body) {
        long ttl = ttlSeconds(body);
        String code = LoginCodes.newCode();
        Instant expiresAt = codes.add(LoginCodes.hash(code), Duration.ofSeconds(ttl));
        boolean required = apiToken.filter(t -> !t.isBlank()).isPresent();
        Log.infof("dashboard login code issued, valid for %d s", ttl);
        return Response.status(201).entity(Map.of("code", code, "expiresAt", expiresAt.toString(), "required", required)).build();
    }

    /** The requested lifetime: the body's {@code ttlSeconds} (1 to a day), else the configured default. */
    private long ttlSeconds(String body) {
        if (body == null || body.isBlank()) {
            return defaultTtl.toSeconds();
        }
        JsonNode n;
        try {
            n = mapper.readTree(body);
        } catch (IOException e) {
            throw ApiException.badRequest("body must be JSON: {\"ttlSeconds\": <1 to " + MAX_TTL_SECONDS + ">} or nothing");
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("body must be an object: {\"ttlSeconds\": <1 to " + MAX_TTL_SECONDS + ">}");
        }
        var fields = n.fieldNames();
        while (fields.hasNext()) {
            String f = fields.next();
            if (!f.equals("ttlSeconds")) {
                throw ApiException.badRequest("unknown field \"" + f + "\": the body is {\"ttlSeconds\"} or nothing");
            }
        }
        JsonNode ttl = n.get("ttlSeconds");
        if (ttl == null || ttl.isNull()) {
            return defaultTtl.toSeconds();
        }
        if (!ttl.canConvertToExactIntegral() || ttl.asLong() < 1 || ttl.asLong() > MAX_TTL_SECONDS) {
            throw ApiException.badRequest("ttlSeconds must be a whole number from 1 to " + MAX_TTL_SECONDS + ", not " + ttl);
        }
        return ttl.asLong();
    }
}

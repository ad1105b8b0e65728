package dev.cohort.lead.api;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/** Bearer-token check for /api and /internal when a token is configured; health and metrics stay open. */
public class TokenFilter {

    /** Public API token ({@code COHORT_API_TOKEN}); absent = open, for local runs. */
    @ConfigProperty(name = "cohort.api.token")
    Optional<String> apiToken;

    /** Internal API token ({@code COHORT_INTERNAL_TOKEN}) used by the other services. */
    @ConfigProperty(name = "cohort.internal.token")
    Optional<String> internalToken;

    @ServerRequestFilter(preMatching = true)
    public Optional<Response> check(ContainerRequestContext ctx) {
        String path = ctx.getUriInfo().getPath();
        Optional<String> expected = path.startsWith("/api") ? apiToken
                : path.startsWith("/internal") ? internalToken : Optional.empty();
        if (expected.isEmpty() || expected.get().isBlank()) {
            return Optional.empty();
        }
        String header = ctx.getHeaderString(HttpHeaders.AUTHORIZATION);
        String given = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : null;
        if (given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                expected.get().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(Response.fromResponse(Problem.response(401, "Unauthorized",
                given == null ? "missing bearer token (Authorization: Bearer <token>)" : "invalid bearer token"))
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build());
    }
}

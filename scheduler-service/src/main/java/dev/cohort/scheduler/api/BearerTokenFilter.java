package dev.cohort.scheduler.api;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * When {@code cohort.api.token} (env {@code COHORT_API_TOKEN}) is set, every {@code /api} call needs
 * {@code Authorization: Bearer <token>}; health and metrics stay open.
 */
public class BearerTokenFilter {

    @ConfigProperty(name = "cohort.api.token")
    Optional<String> token;

    @ServerRequestFilter(preMatching = true)
    public Optional<Response> check(ContainerRequestContext ctx) {
        Optional<String> expected = token.filter(t -> !t.isBlank());
        if (expected.isEmpty() || !ctx.getUriInfo().getPath().startsWith("/api")) {
            return Optional.empty();
        }
        String header = ctx.getHeaderString("Authorization");
        String given = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : "";
        // constant-time comparison: the token must not leak through response timing
        if (MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.get().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(Problem.response(401, "unauthorized", "Unauthorized",
                header == null ? "missing Authorization: Bearer <token> (cohort.api.token is set)" : "wrong bearer token"));
    }
}

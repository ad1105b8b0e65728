package dev.cohort.host.web;

import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The bearer-token check of every Cohort service: a request whose path starts with a prefix of
 * {@code cohort.web.bearer} needs {@code Authorization: Bearer <token>} with the token of that prefix's config key
 * (compared in constant time). Refusals are 401 problem+json with {@code WWW-Authenticate: Bearer}; the detail never
 * contains the token. A prefix whose token is unset is open; health and metrics are never under a prefix. A request
 * without the header may instead carry a valid {@link SessionCookie} signed with that token (the dashboard's login).
 */
@Singleton
public class BearerTokenFilter {

    /** Resolved lazily: the filter is built during static init, before runtime config mappings exist. */
    @Inject
    Instance<WebConfig> config;

    @ServerRequestFilter(preMatching = true)
    public Optional<Response> check(ContainerRequestContext ctx) {
        String path = ctx.getUriInfo().getPath();
        Optional<String> key = tokenKeyFor(config.get().bearer(), path);
        Optional<String> expected = key.flatMap(k -> ConfigProvider.getConfig().getOptionalValue(k, String.class))
                .filter(t -> !t.isBlank());
        if (expected.isEmpty()) {
            return Optional.empty();
        }
        String header = ctx.getHeaderString(HttpHeaders.AUTHORIZATION);
        String given = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : null;
        if (given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                expected.get().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        // the dashboard's login cookie (EventSource cannot send headers); SameSite=Strict keeps other sites out
        jakarta.ws.rs.core.Cookie session = ctx.getCookies().get(SessionCookie.NAME);
        if (given == null && session != null && SessionCookie.valid(session.getValue(), expected.get(), java.time.Instant.now())) {
            return Optional.empty();
        }
        String detail = given == null
                ? "missing bearer token (Authorization: Bearer <token>; " + key.get() + " is set)"
                : "invalid bearer token";
        Problem p = Problem.of(401, "Unauthorized", detail).withType(config.get().problemType("unauthorized"))
                .withInstance(path);
        return Optional.of(Response.fromResponse(p.toResponse()).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build());
    }

    /** The config key of the longest prefix of {@code rules} that {@code path} starts with. Pure. */
    static Optional<String> tokenKeyFor(Map<String, String> rules, String path) {
        return rules.entrySet().stream().filter(r -> path.startsWith(r.getKey()))
                .max(java.util.Comparator.comparingInt(r -> r.getKey().length()))
                .map(Map.Entry::getValue);
    }

    /** Says at start which prefixes are protected by which key (never the tokens), and which key is unset. */
    void announce(@Observes StartupEvent start) {
        config.get().bearer().forEach((prefix, key) -> {
            boolean set = ConfigProvider.getConfig().getOptionalValue(key, String.class).filter(t -> !t.isBlank()).isPresent();
            Log.infof("bearer check: %s* needs %s%s", prefix, key, set ? "" : " (unset: open)");
        });
    }
}

package dev.cohort.platform.web;

import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Comparator;
import java.util.function.Function;
import java.util.List;
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

    /**
     * The prefixes with their tokens, longest prefix first, and the refusal's problem type: resolved on the first
     * request (looking up the config mapping and every token on each request cost ~6 % of the tool runner's
     * CPU per call). Configuration does not change while a service runs, so once is exact.
     */
    private volatile Rules rules;

    /** One protected prefix: its token's config key and the token ({@code null}: unset or blank, so open). */
    record Rule(String prefix, String key, String token) {

        /** The token as the constant-time comparison takes it. */
        byte[] tokenBytes() {
            return token.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Every rule, longest prefix first, and the problem type of a refusal. */
    record Rules(List<Rule> byLength, String unauthorizedType) {

        /** {@code prefixes} (prefix → token's config key) with each key's token by {@code token}, longest first. */
        static Rules of(Map<String, String> prefixes, Function<String, String> token,
                String unauthorizedType) {
            return new Rules(prefixes.entrySet().stream()
                    .sorted(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length())
                            .reversed())
                    .map(e -> new Rule(e.getKey(), e.getValue(), token.apply(e.getValue())))
                    .toList(), unauthorizedType);
        }

        /** The rule of the longest prefix {@code path} starts with ({@link #tokenKeyFor}'s choice). */
        Rule forPath(String path) {
            for (Rule r : byLength) {
                if (path.startsWith(r.prefix())) {
                    return r;
                }
            }
            return null;
        }
    }

    private Rules rules() {
        Rules r = rules;
        if (r == null) {
            WebConfig c = config.get();
            r = Rules.of(c.bearer(), key -> ConfigProvider.getConfig().getOptionalValue(key, String.class)
                    .filter(t -> !t.isBlank()).orElse(null), c.problemType("unauthorized"));
            rules = r;
        }
        return r;
    }

    @ServerRequestFilter(preMatching = true)
    public Optional<Response> check(ContainerRequestContext ctx) {
        String path = ctx.getUriInfo().getPath();
        Rules all = rules();
        Rule rule = all.forPath(path);
        if (rule == null || rule.token() == null) {
            return Optional.empty();
        }
        String expected = rule.token();
        String header = ctx.getHeaderString(HttpHeaders.AUTHORIZATION);
        String given = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : null;
        if (given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                rule.tokenBytes())) {
            return Optional.empty();
        }
        // the dashboard's login cookie (EventSource cannot send headers); SameSite=Strict keeps other sites out
        Cookie session = ctx.getCookies().get(SessionCookie.NAME);
        if (given == null && session != null && SessionCookie.valid(session.getValue(), expected, Instant.now())) {
            return Optional.empty();
        }
        String detail = given == null
                ? "missing bearer token (Authorization: Bearer <token>; " + rule.key() + " is set)"
                : "invalid bearer token";
        Problem p = Problem.of(401, "Unauthorized", detail).withType(all.unauthorizedType())
                .withInstance(path);
        return Optional.of(Response.fromResponse(p.toResponse()).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build());
    }

    /** The config key of the longest prefix of {@code rules} that {@code path} starts with. Pure. */
    static Optional<String> tokenKeyFor(Map<String, String> rules, String path) {
        return Optional.ofNullable(Rules.of(rules, key -> null, Problem.ABOUT_BLANK).forPath(path)).map(Rule::key);
    }

    /** Says at start which prefixes are protected by which key (never the tokens), and which key is unset. */
    void announce(@Observes StartupEvent start) {
        config.get().bearer().forEach((prefix, key) -> {
            boolean set = ConfigProvider.getConfig().getOptionalValue(key, String.class).filter(t -> !t.isBlank()).isPresent();
            Log.infof("bearer check: %s* needs %s%s", prefix, key, set ? "" : " (unset: open)");
        });
    }
}

package dev.cohort.platform.web;

import io.smallrye.config.ConfigMapping;
import java.util.Map;
import java.util.Optional;

/**
 * {@code cohort.web.*}: how the shared {@link BearerTokenFilter} and {@link ProblemMappers} behave in a service.
 *
 * <pre>
 * # lead-service: the public API and the internal API have different tokens
 * cohort.web.bearer."/api"=cohort.api.token
 * cohort.web.bearer."/internal"=cohort.internal.token
 * </pre>
 */
@ConfigMapping(prefix = "cohort.web")
public interface WebConfig {

    /**
     * Which request paths need a bearer token, and which config key holds it: path prefix (e.g. {@code /api}) →
     * name of the property with the token (e.g. {@code cohort.api.token}). The longest matching prefix decides. A
     * prefix whose token is absent or blank is open (local runs). No entry = nothing is checked. Paths outside
     * every prefix stay open; health and metrics are served on the management port, which this filter does not see.
     */
    Map<String, String> bearer();

    /**
     * When set, problem types of the shared mappers and the filter are {@code <prefix><slug>} (the scheduler's
     * {@code urn:cohort:problem:}, e.g. {@code urn:cohort:problem:unauthorized}); absent = {@code about:blank}.
     */
    Optional<String> problemTypePrefix();

    /** The problem type for {@code slug} under this configuration. */
    default String problemType(String slug) {
        return problemTypePrefix().filter(p -> !p.isBlank()).map(p -> p + slug).orElse(Problem.ABOUT_BLANK);
    }
}

package dev.cohort.toolrunner.api;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * When {@code cohort.tool-runner.token} is set, every {@code /internal} call needs
 * {@code Authorization: Bearer <token>} (compared in constant time); health and metrics stay open.
 */
public class TokenFilter {
    /** Resolved lazily: the filter is built during static init, before runtime config mappings exist. */
    @Inject
    jakarta.enterprise.inject.Instance<ToolRunnerConfig> config;

    @ServerRequestFilter(preMatching = true)
    public Response check(ContainerRequestContext ctx) {
        var token = config.get().token().filter(t -> !t.isBlank());
        if (token.isEmpty() || !ctx.getUriInfo().getPath().startsWith("/internal")) {
            return null;
        }
        String h = ctx.getHeaderString(HttpHeaders.AUTHORIZATION);
        String expected = "Bearer " + token.get();
        if (h != null && MessageDigest.isEqual(h.getBytes(StandardCharsets.UTF_8),
                expected.getBytes(StandardCharsets.UTF_8))) {
            return null;
        }
        Response r = Problem.response(Response.Status.UNAUTHORIZED,
                h == null ? "missing Authorization: Bearer <token>" : "wrong bearer token", ctx.getUriInfo().getPath());
        return Response.fromResponse(r).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build();
    }
}

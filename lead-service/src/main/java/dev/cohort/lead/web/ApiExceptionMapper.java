package dev.cohort.lead.web;

import dev.cohort.platform.web.Problem;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The lead's own refusals ({@link ApiException}) as problem+json; the generic cases (malformed JSON, JAX-RS errors,
 * unexpected failures) are platform's {@link dev.cohort.platform.web.ProblemMappers}.
 */
public class ApiExceptionMapper {

    @ServerExceptionMapper
    public Response api(ApiException e, UriInfo uri) {
        return Problem.of(e.status(), e.title(), e.getMessage()).withInstance(uri.getPath()).toResponse();
    }
}

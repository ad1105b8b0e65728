package dev.cohort.toolrunner.api;

import dev.cohort.platform.web.Problem;
import dev.cohort.toolrunner.BadRequest;
import dev.cohort.toolrunner.Busy;
import dev.cohort.toolrunner.Conflict;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Maps failures of the request itself (not of the tool) to problem+json (CONVENTIONS #6): the runner's own refusals.
 * The generic cases (malformed JSON, JAX-RS errors, unexpected failures) are platform's
 * {@link dev.cohort.platform.web.ProblemMappers}.
 */
public class ToolProblems {

    @ServerExceptionMapper
    public Response badRequest(BadRequest e, UriInfo uri) {
        return Problem.of(400, e.getMessage()).withInstance(uri.getPath()).toResponse();
    }

    @ServerExceptionMapper
    public Response conflict(Conflict e, UriInfo uri) {
        return Problem.of(409, e.getMessage()).withInstance(uri.getPath()).toResponse();
    }

    @ServerExceptionMapper
    public Response busy(Busy e, UriInfo uri) {
        return Problem.of(503, e.getMessage()).withInstance(uri.getPath()).toResponse();
    }
}

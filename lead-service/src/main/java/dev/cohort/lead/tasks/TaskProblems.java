package dev.cohort.lead.tasks;

import dev.cohort.platform.web.Problem;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Board refusals as RFC 9457 problem+json, with the refusal's {@code code} and, as extension members, what is in the
 * way: {@code blockers} (unfinished dependencies) and {@code owner} (the current holder); empty ones are left out.
 */
public class TaskProblems {

    @ServerExceptionMapper
    public Response refused(TaskRefusal e, UriInfo uri) {
        return Problem.of(e.code().httpStatus(), e.getMessage()).withInstance(uri.getPath())
                .with("code", e.code().slug()).with("blockers", e.blockers()).with("owner", e.owner())
                .toResponse();
    }
}

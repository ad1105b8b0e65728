package dev.cohort.toolrunner.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.cohort.toolrunner.service.ToolService;
import io.quarkus.logging.Log;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Maps failures of the request itself (not of the tool) to problem+json (CONVENTIONS #6). */
public class ProblemMappers {

    @ServerExceptionMapper
    public Response badRequest(ToolService.BadRequest e, UriInfo uri) {
        return Problem.response(Response.Status.BAD_REQUEST, e.getMessage(), uri.getPath());
    }

    @ServerExceptionMapper
    public Response conflict(ToolService.Conflict e, UriInfo uri) {
        return Problem.response(Response.Status.CONFLICT, e.getMessage(), uri.getPath());
    }

    @ServerExceptionMapper
    public Response busy(ToolService.Busy e, UriInfo uri) {
        return Problem.response(Response.Status.SERVICE_UNAVAILABLE, e.getMessage(), uri.getPath());
    }

    @ServerExceptionMapper
    public Response json(JsonProcessingException e, UriInfo uri) {
        return Problem.response(Response.Status.BAD_REQUEST, "malformed JSON: " + e.getOriginalMessage(), uri.getPath());
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        int status = e.getResponse().getStatus();
        String title = Response.Status.fromStatusCode(status) == null ? "Error"
                : Response.Status.fromStatusCode(status).getReasonPhrase();
        return Problem.response(status, title, e.getMessage(), uri.getPath());
    }

    @ServerExceptionMapper
    public Response other(Exception e, UriInfo uri) {
        Log.errorf(e, "request %s failed", uri.getPath());
        return Problem.response(Response.Status.INTERNAL_SERVER_ERROR, e.toString(), uri.getPath());
    }
}

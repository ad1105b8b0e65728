package dev.cohort.lead.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.quarkus.logging.Log;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns every failure of the HTTP API into {@code application/problem+json} (RFC 9457). */
public class ProblemMappers {

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return Problem.response(e.status(), e.title(), e.getMessage());
    }

    @ServerExceptionMapper
    public Response json(JsonProcessingException e) {
        return Problem.response(400, "Bad Request", "malformed JSON: " + e.getOriginalMessage());
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        Throwable cause = e.getCause();
        String detail = cause instanceof JsonProcessingException jpe ? "malformed JSON: " + jpe.getOriginalMessage()
                : e.getMessage();
        if (status == 400 && cause != null && detail == null) {
            detail = cause.getMessage();
        }
        return Problem.response(status, Response.Status.fromStatusCode(status) == null ? "Error"
                : Response.Status.fromStatusCode(status).getReasonPhrase(), detail);
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        Log.errorf(e, "unexpected error in the HTTP API");
        return Problem.response(500, "Internal Server Error", "unexpected error: " + e.getClass().getSimpleName());
    }
}

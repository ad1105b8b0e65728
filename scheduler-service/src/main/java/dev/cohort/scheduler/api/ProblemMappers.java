package dev.cohort.scheduler.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.cohort.scheduler.service.CronRequestException;
import io.quarkus.logging.Log;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns every failure of the API into {@code application/problem+json}. */
public class ProblemMappers {

    @ServerExceptionMapper
    public Response refused(CronRequestException e) {
        CronRequestException.Kind k = e.kind();
        return Problem.response(k.status, k.slug, k.title, e.getMessage());
    }

    @ServerExceptionMapper
    public Response unreadable(JsonProcessingException e) {
        return Problem.response(400, "invalid-request", "Invalid request",
                "body is not valid JSON for a cron job: " + e.getOriginalMessage());
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (e.getCause() instanceof JsonProcessingException j) {
            return unreadable(j);
        }
        Response.StatusType s = e.getResponse().getStatusInfo();
        return Problem.response(status, "http-" + status, s.getReasonPhrase(), e.getMessage());
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        Log.errorf(e, "cron API failure");
        return Problem.response(500, "internal", "Internal error", e.getClass().getSimpleName() + ": " + e.getMessage());
    }
}

package dev.cohort.lead.tasks.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.lead.tasks.service.TaskRefusal;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Board refusals as RFC 9457 problem+json, with the refusal's {@code code} and, as extension members, what is in the
 * way: {@code blockers} (unfinished dependencies) and {@code owner} (the current holder).
 */
public class TaskProblems {

    /** The problem body: the standard members plus the board's extensions. */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record Body(String type, String title, int status, String detail, String code,
            List<TaskRefusal.Blocker> blockers, String owner) {
    }

    @ServerExceptionMapper
    public Response refused(TaskRefusal e) {
        int status = e.code().httpStatus();
        Response.Status s = Response.Status.fromStatusCode(status);
        return Response.status(status).type("application/problem+json")
                .entity(new Body("about:blank", s == null ? "Error" : s.getReasonPhrase(), status, e.getMessage(),
                        e.code().slug(), e.blockers(), e.owner()))
                .build();
    }
}

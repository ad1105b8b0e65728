package dev.cohort.scheduler.api;

import dev.cohort.platform.web.Problem;
import dev.cohort.scheduler.jobs.CronRequestException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The scheduler's refusals ({@link CronRequestException}) as problem+json of type
 * {@code urn:cohort:problem:<slug>}; the generic cases are platform's {@link dev.cohort.platform.web.ProblemMappers},
 * which use the same URN types here ({@code cohort.web.problem-type-prefix}).
 */
public class CronProblems {

    /** The URN prefix of the scheduler's problem types (scheduler README). */
    static final String TYPE_PREFIX = "urn:cohort:problem:";

    @ServerExceptionMapper
    public Response refused(CronRequestException e, UriInfo uri) {
        CronRequestException.Kind k = e.kind();
        return Problem.of(k.status, k.title, e.getMessage()).withType(TYPE_PREFIX + k.slug).withInstance(uri.getPath())
                .toResponse();
    }
}

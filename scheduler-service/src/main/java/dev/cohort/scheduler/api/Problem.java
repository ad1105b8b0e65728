package dev.cohort.scheduler.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem document ({@code application/problem+json}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail) {

    public static final String MEDIA_TYPE = "application/problem+json";
    /** Problem types are URNs under this prefix, e.g. {@code urn:cohort:problem:invalid-cron}. */
    public static final String TYPE_PREFIX = "urn:cohort:problem:";

    public static Response response(int status, String slug, String title, String detail) {
        return Response.status(status).type(MediaType.valueOf(MEDIA_TYPE))
                .entity(new Problem(TYPE_PREFIX + slug, title, status, detail)).build();
    }
}

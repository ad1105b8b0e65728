package dev.cohort.toolrunner.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem body ({@code application/problem+json}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance) {
    public static final String MEDIA_TYPE = "application/problem+json";

    public static Response response(Response.Status status, String detail, String instance) {
        return response(status.getStatusCode(), status.getReasonPhrase(), detail, instance);
    }

    public static Response response(int status, String title, String detail, String instance) {
        return Response.status(status).type(MEDIA_TYPE)
                .entity(new Problem("about:blank", title, status, detail, instance)).build();
    }
}

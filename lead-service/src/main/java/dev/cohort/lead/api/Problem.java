package dev.cohort.lead.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem detail, the body of every error answer. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";

    /** A response carrying this problem with its status and media type. */
    public static Response response(int status, String title, String detail) {
        return Response.status(status).type(MEDIA_TYPE)
                .entity(new Problem("about:blank", title, status, detail, null)).build();
    }
}

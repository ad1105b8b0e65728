package dev.cohort.platform.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.quarkus.logging.Log;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.WebApplicationException;
import java.util.Collection;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The generic half of every service's error answers, as {@code application/problem+json} (RFC 9457): malformed JSON
 * (400), a {@link WebApplicationException} (its status: unknown path, wrong method, body too large, ...), and any other
 * exception (500, logged; the detail names only the exception class). A service adds mappers for its own exceptions
 * (the lead's {@code ApiException}, the scheduler's {@code CronRequestException}, ...); RESTEasy picks the most
 * specific mapper, so those win over {@link #unexpected}. {@code instance} is the request path.
 */
public class ProblemMappers {

    /** Resolved lazily, as in {@link BearerTokenFilter}. */
    @Inject
    Instance<WebConfig> config;

    @ServerExceptionMapper
    public Response json(JsonProcessingException e, UriInfo uri) {
        return malformed(e, uri);
    }

    /**
     * A body of the wrong shape (a number or object where text is expected, an array for an object): 400 naming the
     * field. Without this, quarkus-rest-jackson's built-in mapper answers a bare 400 with no problem body.
     */
    @ServerExceptionMapper
    public Response mismatched(MismatchedInputException e, UriInfo uri) {
        String field = e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .reduce((a, b) -> b.startsWith("[") ? a + b : a + "." + b).orElse("");
        String detail = (field.isEmpty() ? "the request body" : "field '" + field + "'") + " has the wrong type"
                + (e.getTargetType() == null ? "" : " (expected " + expected(e.getTargetType()) + ")");
        return Problem.of(400, detail).withType(type("invalid-request")).withInstance(uri.getPath()).toResponse();
    }

    private static String expected(Class<?> t) {
        if (CharSequence.class.isAssignableFrom(t)) {
            return "a string";
        }
        if (Number.class.isAssignableFrom(t) || (t.isPrimitive() && t != boolean.class)) {
            return "a number";
        }
        if (t == Boolean.class || t == boolean.class) {
            return "a boolean";
        }
        if (Collection.class.isAssignableFrom(t) || t.isArray()) {
            return "an array";
        }
        return "an object";
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        int status = e.getResponse().getStatus();
        Throwable cause = e.getCause();
        if (cause instanceof JsonProcessingException j) {
            return malformed(j, uri);
        }
        String detail = e.getMessage();
        if (status == 400 && cause != null && detail == null) {
            detail = cause.getMessage();
        }
        return Problem.of(status, detail).withType(type("http-" + status)).withInstance(uri.getPath()).toResponse();
    }

    @ServerExceptionMapper
    public Response unexpected(Exception e, UriInfo uri) {
        Log.errorf(e, "request %s failed unexpectedly", uri.getPath());
        return Problem.of(500, "unexpected error: " + e.getClass().getSimpleName()).withType(type("internal"))
                .withInstance(uri.getPath()).toResponse();
    }

    private Response malformed(JsonProcessingException e, UriInfo uri) {
        return Problem.of(400, "malformed JSON: " + e.getOriginalMessage()).withType(type("invalid-request"))
                .withInstance(uri.getPath()).toResponse();
    }

    private String type(String slug) {
        return config.get().problemType(slug);
    }
}

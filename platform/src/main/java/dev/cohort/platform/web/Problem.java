package dev.cohort.platform.web;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import jakarta.ws.rs.core.Response;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An RFC 9457 problem detail ({@code application/problem+json}), the body of every error answer of every Cohort
 * service: the standard members {@code type}, {@code title}, {@code status}, {@code detail}, {@code instance} plus
 * optional extension members (e.g. the board's {@code code}, {@code blockers}, {@code owner}). Immutable; the withers
 * return copies.
 *
 * <p>{@code type} is {@code about:blank} unless a service names its problem types (the scheduler's
 * {@code urn:cohort:problem:<slug>}, see {@link WebConfig#problemTypePrefix()}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "instance"})
public final class Problem {

    public static final String MEDIA_TYPE = "application/problem+json";
    /** RFC 9457 §4.2.1: the problem has no meaning beyond its HTTP status. */
    public static final String ABOUT_BLANK = "about:blank";

    private final String type;
    private final String title;
    private final int status;
    private final String detail;
    private final String instance;
    private final Map<String, Object> extensions;

    private Problem(String type, String title, int status, String detail, String instance, Map<String, Object> extensions) {
        this.type = Objects.requireNonNull(type, "type");
        this.title = Objects.requireNonNull(title, "title");
        this.status = status;
        this.detail = detail;
        this.instance = instance;
        this.extensions = extensions;
    }

    /** A problem of type {@code about:blank} with the given title. */
    public static Problem of(int status, String title, String detail) {
        return new Problem(ABOUT_BLANK, title, status, detail, null, Map.of());
    }

    /** A problem of type {@code about:blank} titled with the status's reason phrase ({@code 404} → "Not Found"). */
    public static Problem of(int status, String detail) {
        return of(status, reasonPhrase(status), detail);
    }

    /** The reason phrase of a status, or "Error" for a code JAX-RS does not name. */
    public static String reasonPhrase(int status) {
        Response.Status s = Response.Status.fromStatusCode(status);
        return s == null ? "Error" : s.getReasonPhrase();
    }

    /** A copy with this {@code type} URI (e.g. {@code urn:cohort:problem:invalid-cron}). */
    public Problem withType(String type) {
        return new Problem(type, title, status, detail, instance, extensions);
    }

    /** A copy with this {@code instance} (the request path, so a log line and an answer can be matched). */
    public Problem withInstance(String instance) {
        return new Problem(type, title, status, detail, instance, extensions);
    }

    /**
     * A copy with one extension member; a {@code null} value, an empty collection or an empty string leaves it out. The standard member
     * names are refused, so an extension can never shadow them.
     */
    public Problem with(String name, Object value) {
        if (STANDARD.contains(name)) {
            throw new IllegalArgumentException("\"" + name + "\" is a standard problem member, not an extension");
        }
        if (value == null || value instanceof Collection<?> c && c.isEmpty() || value instanceof CharSequence t && t.isEmpty()) {
            return this;
        }
        Map<String, Object> more = new LinkedHashMap<>(extensions);
        more.put(name, value);
        return new Problem(type, title, status, detail, instance, Collections.unmodifiableMap(more));
    }

    private static final Set<String> STANDARD = Set.of("type", "title", "status", "detail", "instance");

    /** The response carrying this problem, with its status and {@code application/problem+json}. */
    public Response toResponse() {
        return Response.status(status).type(MEDIA_TYPE).entity(this).build();
    }

    @JsonProperty
    public String type() {
        return type;
    }

    @JsonProperty
    public String title() {
        return title;
    }

    @JsonProperty
    public int status() {
        return status;
    }

    @JsonProperty
    public String detail() {
        return detail;
    }

    @JsonProperty
    public String instance() {
        return instance;
    }

    /** The extension members, serialized next to the standard ones. */
    @JsonAnyGetter
    public Map<String, Object> extensions() {
        return extensions;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Problem p && status == p.status && type.equals(p.type) && title.equals(p.title)
                && Objects.equals(detail, p.detail) && Objects.equals(instance, p.instance) && extensions.equals(p.extensions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, title, status, detail, instance, extensions);
    }

    @Override
    public String toString() {
        return "Problem[" + status + " " + type + " " + title + ": " + detail + (extensions.isEmpty() ? "" : " " + extensions) + "]";
    }
}

package dev.cohort.lead.web;

/** An error answer of the public API, rendered as problem+json by {@link ApiExceptionMapper}. */
public class ApiException extends RuntimeException {
    private final int status;
    private final String title;

    public ApiException(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    public static ApiException notFound(String detail) {
        return new ApiException(404, "Not Found", detail);
    }

    public static ApiException badRequest(String detail) {
        return new ApiException(400, "Bad Request", detail);
    }

    public static ApiException conflict(String detail) {
        return new ApiException(409, "Conflict", detail);
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}

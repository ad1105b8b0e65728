package dev.cohort.toolrunner;

/** A request the host got wrong (answered 400). */
public class BadRequest extends RuntimeException {
    public BadRequest(String message) {
        super(message);
    }
}

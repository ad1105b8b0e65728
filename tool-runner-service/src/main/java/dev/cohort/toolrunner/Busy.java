package dev.cohort.toolrunner;

/** No slot became free in time (answered 503). */
public class Busy extends RuntimeException {
    public Busy(String message) {
        super(message);
    }
}

package dev.cohort.toolrunner;

/** The call id was used before for a different call, or a team asked for a second workspace (answered 409). */
public class Conflict extends RuntimeException {
    public Conflict(String message) {
        super(message);
    }
}

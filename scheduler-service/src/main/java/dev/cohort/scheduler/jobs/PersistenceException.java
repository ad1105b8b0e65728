package dev.cohort.scheduler.jobs;

/** A database operation failed (connection lost, constraint broken); ends the request with a 5xx, the tick retries. */
public class PersistenceException extends RuntimeException {

    public PersistenceException(String what, Throwable cause) {
        super(what + ": " + cause.getMessage(), cause);
    }
}

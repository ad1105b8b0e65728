package dev.cohort.host.client;

/**
 * lead-service could not be reached or failed (connection refused, 5xx, a timeout), after the retries of the
 * idempotent calls. The caller's state is unchanged as far as it can know, except for {@code create}, which is not
 * retried and may have gone through.
 */
public class LeadUnavailableException extends RuntimeException {
    public LeadUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.cohort.scheduler.jobs;

/**
 * Answers whether a team exists. The scheduler does not own teams (lead-service does); tests give a real small
 * implementation instead of a mock.
 */
public interface TeamDirectory {

    /**
     * @return whether the team exists
     * @throws TeamLookupException when the owner of the teams cannot be asked
     */
    boolean exists(String team);

    /** The owner of the teams did not answer usefully (down, timeout, 5xx, auth). */
    class TeamLookupException extends RuntimeException {
        public TeamLookupException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}

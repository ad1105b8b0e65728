package dev.cohort.toolrunner.sandbox.kubernetes;

/**
 * A team sandbox's lifecycle step failed on the Kubernetes API, or was refused before reaching it: the message names
 * the team, the resource ({@code Kind namespace/name}) and what went wrong, so an operator can act on it without a
 * stack trace (a 403 names the Role to grant, a timeout the condition that never came).
 */
public final class SandboxLifecycleException extends RuntimeException {

    /** What kind of failure, for callers that react differently (a timeout may be retried; a 403 will not heal). */
    public enum Reason {
        /** The team id is not a valid Cohort team id; no API call was made. */
        INVALID_TEAM,
        /** 403: the tool runner's ServiceAccount lacks a verb on the resource. */
        FORBIDDEN,
        /** 404: the resource (a claim, its Sandbox) does not exist. */
        NOT_FOUND,
        /** 409: the resource changed or was created concurrently and could not be reconciled. */
        CONFLICT,
        /** The sandbox did not become ready within the bounded wait. */
        TIMEOUT,
        /** Any other answer of the API server, or none (connection refused, 5xx). */
        API_ERROR
    }

    private final Reason reason;
    private final String team;
    private final String resource;

    public SandboxLifecycleException(Reason reason, String team, String resource, String message, Throwable cause) {
        super("team " + team + ": " + resource + ": " + message, cause);
        this.reason = reason;
        this.team = team;
        this.resource = resource;
    }

    /** What kind of failure this is. */
    public Reason reason() {
        return reason;
    }

    /** The team whose sandbox it was. */
    public String team() {
        return team;
    }

    /** The resource the step was on, {@code Kind namespace/name}. */
    public String resource() {
        return resource;
    }
}

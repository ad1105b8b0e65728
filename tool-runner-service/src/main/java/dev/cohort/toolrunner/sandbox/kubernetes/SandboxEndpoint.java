package dev.cohort.toolrunner.sandbox.kubernetes;

/**
 * Where a team's sandbox agent listens: the Sandbox's headless Service ({@code status.serviceFQDN}, stable across the
 * pod's restarts and a pause/resume) and the agent's port.
 *
 * @param sandbox the name of the Sandbox bound to the team's claim
 * @param host the Sandbox's headless Service, fully qualified
 * @param port the agent's port (the template's container port {@code agent})
 */
public record SandboxEndpoint(String sandbox, String host, int port) {
}

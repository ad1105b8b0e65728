package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;

/**
 * Asks a human whether a tool call may run (ARCHITECTURE §3.4). lead-service stores an approval request, emits
 * {@code approval_requested}, and answers when someone approves or denies over HTTP or the CLI. Blocks the calling
 * turn until an answer or the timeout; a timeout is a denial.
 */
@FunctionalInterface
public interface ApprovalGateway {
    /** Denies everything: for hosts without humans. */
    ApprovalGateway DENY_ALL = (r, t) -> Decision.deny("no approver is configured");

    Decision request(Request request, Duration timeout);

    /**
     * @param team   the team
     * @param agent  the agent that wants to run the call
     * @param turnId the turn
     * @param callId the tool call
     * @param tool   the tool name
     * @param args   its arguments
     * @param reason why the gate asks (e.g. "destructive command: rm")
     */
    record Request(String team, String agent, String turnId, String callId, String tool, ObjectNode args, String reason) {
    }

    /** The answer; {@code reason} is shown to the model on a denial. */
    record Decision(boolean approved, String reason) {
        public static Decision approve() {
            return new Decision(true, null);
        }

        public static Decision deny(String reason) {
            return new Decision(false, reason);
        }
    }
}

package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;

/**
 * Asks a human whether a tool call may run (ARCHITECTURE §3.4), without waiting for the answer. lead-service stores
 * an approval request with an id derived from (team, agent, turn, call), emits {@code approval_requested}, and
 * answers {@link Decision.Status#PENDING} until someone approves or denies over HTTP or the CLI, or the request
 * expires (a denial).
 *
 * <p>The engine never blocks on an approval: on {@code PENDING} it saves the turn <em>parked</em> on the approval id
 * ({@link AgentState.TurnProgress#waiting()}) with the call still unanswered, and the session returns
 * {@link StopReason#PARKED}. The host keeps no thread for it; when the answer arrives it resumes the turn, the gate
 * runs again for the same call, {@link #check} finds the answer, and the call runs once (approved) or the model sees
 * the denial and its reason. {@link #check} must therefore be idempotent per (team, agent, turn, call).
 */
@FunctionalInterface
public interface ApprovalGateway {
    /** Denies everything: for hosts without humans. */
    ApprovalGateway DENY_ALL = r -> Decision.deny("no approver is configured");

    /** Creates the request on the first ask and answers its current state; never waits for a human. */
    Decision check(Request request);

    /**
     * @param team    the team
     * @param agent   the agent that wants to run the call
     * @param turnId  the turn
     * @param callId  the tool call
     * @param tool    the tool name
     * @param args    its arguments
     * @param reason  why the gate asks (e.g. "destructive command: rm")
     * @param timeout how long the request stays open before it counts as a denial (from its first ask)
     */
    record Request(String team, String agent, String turnId, String callId, String tool, ObjectNode args, String reason,
            Duration timeout) {

        /** What an approval of this request binds: the tool and a digest of its arguments ({@link CallDigest}). */
        public String digest() {
            return CallDigest.of(tool, args);
        }
    }

    /**
     * The answer.
     *
     * @param status     approved, denied, or still pending
     * @param reason     for a denial: shown to the model
     * @param approvalId for a pending request: what the parked turn waits for
     */
    record Decision(Status status, String reason, String approvalId) {
        public enum Status { APPROVED, DENIED, PENDING }

        public static Decision approve() {
            return new Decision(Status.APPROVED, null, null);
        }

        public static Decision deny(String reason) {
            return new Decision(Status.DENIED, reason, null);
        }

        public static Decision pending(String approvalId) {
            return new Decision(Status.PENDING, null, approvalId);
        }

        public boolean approved() {
            return status == Status.APPROVED;
        }
    }
}

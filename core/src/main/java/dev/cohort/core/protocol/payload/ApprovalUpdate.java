package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.EventType;

/**
 * {@code approval_requested} and {@code approval_resolved}: the state of one approval request (same fields).
 *
 * @param type       which of the two events
 * @param approvalId the request (derived from team, agent, turn and call)
 * @param tool       the tool that waits
 * @param reason     why the gate asked
 * @param status     {@code pending}, {@code approved}, {@code denied} or {@code expired}
 * @param callId     the tool call
 * @param turnId     the turn
 * @param expiresAt  when it counts as a denial (ISO-8601)
 * @param args       the call's arguments
 * @param answer     the person's reason, when given
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApprovalUpdate(@JsonIgnore EventType type, String approvalId, String tool, String reason, String status,
        String callId, String turnId, String expiresAt, JsonNode args, String answer) implements EventPayload {
    public ApprovalUpdate {
        if (type != EventType.APPROVAL_REQUESTED && type != EventType.APPROVAL_RESOLVED) {
            throw new IllegalArgumentException("not an approval event: " + type);
        }
    }
}

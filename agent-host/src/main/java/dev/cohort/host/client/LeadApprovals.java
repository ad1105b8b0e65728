package dev.cohort.host.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The wire shapes of the lead's internal approvals API ({@code POST /internal/v1/teams/{team}/approvals}, contract
 * §6), as its callers see them: lead-service's {@code InternalApprovalsResource} records, field for field.
 */
public final class LeadApprovals {
    private LeadApprovals() {
    }

    /** Body of an ask: one tool call of a teammate's turn. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record CheckRequest(String agent, String turnId, String callId, String tool, ObjectNode args, String reason,
            Long timeoutSeconds) {
    }

    /** The answer: {@code approved}, {@code denied} (+ {@code reason}) or {@code pending} (+ {@code approvalId}). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Answer(String status, String reason, String approvalId) {
    }

    /** Body of {@code settled}: approval ids parked agents wait for. */
    record SettledRequest(List<String> ids) {
    }

    /** Those of them answered or past their expiry. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Settled(List<String> settled) {
    }

    /** Body of {@code cancel}: a teammate's turn that ended while parked on approvals. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record CancelRequest(String agent, String turnId, String reason) {
    }

    /** The approvals that were cancelled. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Cancelled(List<String> cancelled) {
    }
}

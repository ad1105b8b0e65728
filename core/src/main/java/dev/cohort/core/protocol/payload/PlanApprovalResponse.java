package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code plan_approval_response} (sent by {@code review_plan}): the lead's verdict on a plan.
 *
 * @param requestId the id of the {@link PlanApprovalRequest} answered
 * @param approve   whether the plan is approved (the teammate's mutating tools are then released); an absent
 *                  {@code approve} reads as {@code false}, as in the seed
 * @param feedback  the lead's feedback; omitted when none was given
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PlanApprovalResponse(String requestId, boolean approve, String feedback) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.PLAN_APPROVAL_RESPONSE;
    }
}

package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code plan_approval_request} (sent by {@code submit_plan}): a teammate asks the lead to review
 * its plan, which is the message content.
 *
 * @param requestId the new request's id; the lead passes it to {@code review_plan}
 */
public record PlanApprovalRequest(String requestId) implements MessageMetadata {

    @Override
    public MessageType type() {
        return MessageType.PLAN_APPROVAL_REQUEST;
    }
}

package dev.cohort.teammate.protocols;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.payload.PlanApprovalRequest;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.Set;

/**
 * {@code submit_plan{plan}} (teammates): a {@code plan_approval_request} to the lead, whose id (derived from the
 * call, so a resumed turn sends the same request) is the request id the lead passes to {@code review_plan}. The sender
 * is the host's identity, never a model argument (the seed took {@code from_name} from the model). The lead
 * records the request when it arrives; its answer wakes the teammate and opens its plan gate if approved.
 */
public final class SubmitPlanTool extends SpecifiedTool {

    public static final String NAME = "submit_plan";
    /** How long the send waits for the broker before the call counts as an infrastructure failure. */
    static final long ACK_SECONDS = 30;

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Submit your plan to the lead for approval. While a plan is required, your file and shell changes are "
                    + "refused until the lead approves one; after submitting, end your turn: its answer wakes you.",
            ToolSchemas.object().addProperty("plan", ToolSchemas.string("the plan: what you will change, in which files, "
                    + "and how you will check it")).required("plan").build());

    private final AgentMessagePublisher publisher;

    public SubmitPlanTool(AgentMessagePublisher publisher) {
        super(SPEC, false, Set.of(AgentRole.TEAMMATE));
        this.publisher = publisher;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String plan = call.string("plan");
        if (plan == null || plan.isBlank()) {
            return ToolResult.error("arguments", "plan is empty: say what you will change and how you will check it");
        }
        if (plan.length() > TeamMessages.MAX_CONTENT) {
            return ToolResult.error("arguments", "plan has " + plan.length() + " characters; the limit is "
                    + TeamMessages.MAX_CONTENT + " (put details in a file and name its path)");
        }
        String requestId = EffectKey.of(call, ctx).uuid().toString();
        AgentMessage m = AgentMessage.of(requestId, ctx.team(), ctx.agent(), Ids.LEAD, plan.strip(),
                new PlanApprovalRequest(requestId), Instant.now());
        try {
            publisher.send(m).toCompletableFuture().get(ACK_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolInfrastructureException("interrupted while submitting plan " + requestId, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new ToolInfrastructureException("the broker did not take plan " + requestId + ": "
                    + (e.getCause() == null ? e : e.getCause()), e);
        }
        return ToolResult.ok("Plan submitted to the lead (req: " + requestId + "). Wait for its answer: end your turn "
                + "now; you are woken with the decision.");
    }
}

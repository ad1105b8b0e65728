package dev.cohort.lead.protocols;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.protocols.ProtocolRepository.ProtocolRow;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code review_plan{request_id, approve, feedback?}} (the lead only): decides a pending plan approval by one
 * conditional statement that checks the type (a shutdown request id is refused) and that the plan was
 * submitted to the lead, then sends {@code plan_approval_response} to the plan's sender. Approved: its host lets it
 * change files; rejected: still gated, it sees the feedback and may submit again.
 */
public final class ReviewPlanTool extends SpecifiedTool {

    public static final String NAME = "review_plan";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Approve or reject a plan a teammate submitted, by its request id (the req:<id> of its "
                    + "plan_approval_request). Approved: the teammate may change files; rejected: it revises and resubmits.",
            ToolSchemas.object().addProperty("request_id", ToolSchemas.string("the plan's request id"))
                    .addProperty("approve", ToolSchemas.bool("true to approve, false to reject"))
                    .addProperty("feedback", ToolSchemas.string("what to change, or notes for the work (optional)"))
                    .required("request_id", "approve").build());

    private final ProtocolService service;
    private final ToolEffectRepository effects;

    public ReviewPlanTool(ProtocolService service, ToolEffectRepository effects) {
        super(SPEC, false, LEAD_ONLY);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String id = call.string("request_id") == null ? "" : call.string("request_id").strip();
        boolean approve = call.flag("approve");
        String feedback = ProtocolTools.blankToNull(call.string("feedback"));
        if (id.isEmpty()) {
            return ToolResult.error("arguments", "request_id is empty: pass the req:<id> of the plan_approval_request");
        }
        ToolResult bad = ProtocolTools.tooLong("feedback", feedback);
        if (bad != null) {
            return bad;
        }
        EffectKey key = EffectKey.of(call, ctx);
        return effects.once(key, () -> ProtocolTools.run("review plan " + id, () -> {
            ProtocolRow row = service.reviewPlan(ctx.team(), id, approve, feedback, Ids.LEAD);
            return ToolResult.ok("Plan " + row.id() + " of " + row.sender() + " " + row.status() + "; " + row.sender()
                    + (approve ? " may now change files." : " stays read-only and sees your feedback."));
        }));
    }
}

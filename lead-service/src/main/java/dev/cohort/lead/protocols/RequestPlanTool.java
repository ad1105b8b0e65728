package dev.cohort.lead.protocols;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code request_plan{teammate, content?}} (the lead only): asks a teammate for a plan and closes its plan gate:
 * its host refuses every mutating tool call until a plan it submits is approved ({@code review_plan}). Unlike the
 * seed, the request is enforced, not only asked for.
 */
public final class RequestPlanTool extends SpecifiedTool {

    public static final String NAME = "request_plan";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Ask a teammate to submit a plan for your review. From now on its file and shell changes are refused until "
                    + "you approve a plan it submits (review_plan); read-only tools keep working.",
            ToolSchemas.object().addProperty("teammate", ToolSchemas.string("the teammate's name, e.g. 'bob'"))
                    .addProperty("content", ToolSchemas.string("what the plan should cover (optional)"))
                    .required("teammate").build());

    private final ProtocolService service;
    private final ToolEffectRepository effects;

    public RequestPlanTool(ProtocolService service, ToolEffectRepository effects) {
        super(SPEC, false);
        this.service = service;
        this.effects = effects;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String teammate = call.string("teammate") == null ? "" : call.string("teammate").strip();
        String content = ProtocolTools.blankToNull(call.string("content"));
        ToolResult bad = ProtocolTools.tooLong("content", content);
        if (bad != null) {
            return bad;
        }
        EffectKey key = EffectKey.of(call, ctx);
        return effects.once(key, () -> ProtocolTools.run("request a plan of " + teammate, () -> {
            service.requestPlan(ctx.team(), key.uuid().toString(), teammate, content);
            return ToolResult.ok("Asked " + teammate + " for a plan; its changes are refused until you approve one. Its"
                    + " plan arrives as a plan_approval_request with a req id: decide it with review_plan.");
        }));
    }
}

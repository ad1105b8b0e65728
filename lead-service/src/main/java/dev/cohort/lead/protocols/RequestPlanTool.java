package dev.cohort.lead.protocols;

import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code request_plan{teammate, content?}} (the lead only): asks a teammate for a plan and closes its plan gate:
 * its host refuses every mutating tool call until a plan it submits is approved ({@code review_plan}). Unlike the
 * seed, the request is enforced, not only asked for.
 */
public final class RequestPlanTool extends TeammateRequestTool {

    public static final String NAME = "request_plan";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Ask a teammate to submit a plan for your review. From now on its file and shell changes are refused until "
                    + "you approve a plan it submits (review_plan); read-only tools keep working.",
            ToolSchemas.object().addProperty("teammate", ToolSchemas.string("the teammate's name, e.g. 'bob'"))
                    .addProperty("content", ToolSchemas.string("what the plan should cover (optional)"))
                    .required("teammate").build());

    private final ProtocolService service;

    public RequestPlanTool(ProtocolService service, ToolEffectRepository effects) {
        super(SPEC, "content", "request a plan of", effects);
        this.service = service;
    }

    @Override
    ToolResult send(String team, String id, String teammate, String content) {
        service.requestPlan(team, id, teammate, content);
        return ToolResult.ok("Asked " + teammate + " for a plan; its changes are refused until you approve one. Its"
                + " plan arrives as a plan_approval_request with a req id: decide it with review_plan.");
    }
}

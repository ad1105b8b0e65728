package dev.cohort.core.tools.subagent;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code spawn_subagent}: delegates a self-contained piece of work to a subagent with a clean context and
 * returns only its final answer. Subagents cannot spawn subagents.
 */
public final class SpawnSubagentTool extends SpecifiedTool {
    public static final String NAME = "spawn_subagent";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Start a subagent with a fresh context and file/shell tools to do a self-contained subtask (e.g. "
                    + "explore many files); only its final answer comes back. Describe the task completely: the "
                    + "subagent sees nothing of this conversation.",
            ToolSchemas.object().addProperty("description", ToolSchemas.string("the complete task for the subagent"))
                    .required("description").build());

    public SpawnSubagentTool() {
        super(SPEC, false, LEAD_ONLY); // the subagent's own calls are gated one by one
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        if (ctx.role() == AgentRole.SUBAGENT) {
            return ToolResult.error("no-nesting", "a subagent cannot spawn subagents; do the work yourself");
        }
        String description = call.string("description");
        if (description == null || description.isBlank()) {
            return ToolResult.error("bad-argument", "description is empty");
        }
        SubagentRunner.SubagentResult r = ctx.subagents().run(description, ctx);
        return r.capHit() ? ToolResult.error("subagent-cap", r.text()) : ToolResult.ok(r.text());
    }
}

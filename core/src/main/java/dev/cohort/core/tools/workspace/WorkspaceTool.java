package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * Base of the file and shell tools: they only describe themselves; execution is delegated to the
 * {@link WorkspaceToolExecutor} with the host-chosen cwd (the engine never touches files).
 */
public abstract class WorkspaceTool extends SpecifiedTool {

    protected WorkspaceTool(ToolSpecification spec, boolean mutating) {
        super(spec, mutating);
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        ToolOutcome outcome = ctx.workspace().execute(name(), call.id(), call.args(),
                new WorkspaceToolExecutor.Target(ctx.team(), ctx.agent(), ctx.cwd(), ctx.readOnly()));
        return outcome.toResult();
    }
}

package dev.cohort.toolrunner.tools;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.worktrees.WorktreeManager;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** {@code list_worktrees {}}: the team's worktrees as JSON (name, branch, base, cwd, status, task). */
@ApplicationScoped
public class ListWorktreesTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "list_worktrees";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "List the team's worktrees: name, branch, base commit, status (active, kept, "
            + "missing) and bound task.", ToolSchemas.object().build());

    public ListWorktreesTool() {
        super(SPEC, false, List.of(AgentRole.LEAD));
    }

    @Inject
    WorktreeManager worktrees;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        List<WorktreeManager.Info> all = worktrees.list(ctx);
        return ToolCallResult.ok(all.isEmpty() ? "(no worktrees)" : Json.write(all), 0);
    }
}

package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.workspace.BashTool;
import dev.cohort.core.tools.workspace.CancelBackgroundTool;
import dev.cohort.core.tools.workspace.CheckBackgroundTool;
import dev.cohort.core.tools.workspace.EditFileTool;
import dev.cohort.core.tools.workspace.GlobTool;
import dev.cohort.core.tools.workspace.GrepTool;
import dev.cohort.core.tools.workspace.ReadFileTool;
import dev.cohort.core.tools.workspace.WriteFileTool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The tools of every lead and teammate (ARCHITECTURE §4.3): the file and shell tools, which run on the tool runner
 * through the context's workspace executor, the caller's own background jobs, {@code todo_write} and
 * {@code load_skill}.
 */
@ApplicationScoped
public class SharedToolProvider extends RoleTools {

    SharedToolProvider() {
        super(0, AgentRole.LEAD, AgentRole.TEAMMATE);
    }

    @Override
    public List<Tool> tools() {
        return List.of(new BashTool(), new ReadFileTool(), new WriteFileTool(), new EditFileTool(), new GlobTool(),
                new GrepTool(), new CheckBackgroundTool(), new CancelBackgroundTool(), new TodoWriteTool(),
                new LoadSkillTool());
    }
}

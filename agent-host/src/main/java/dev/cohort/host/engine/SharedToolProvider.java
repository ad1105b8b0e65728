package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.todo.TodoWriteTool;
import dev.cohort.core.tools.Tool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The engine's own tools of every lead and teammate: {@code todo_write} and {@code load_skill}. The file and shell
 * tools come from the tool runner's catalogue ({@link EngineAssembly.Builder#workspace}).
 */
@ApplicationScoped
public class SharedToolProvider extends RoleTools {

    SharedToolProvider() {
        super(0, AgentRole.LEAD, AgentRole.TEAMMATE);
    }

    @Override
    public List<Tool> tools() {
        return List.of(new TodoWriteTool(), new LoadSkillTool());
    }
}

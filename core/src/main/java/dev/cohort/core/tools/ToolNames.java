package dev.cohort.core.tools;

import dev.cohort.core.memory.tools.MemoryDeleteTool;
import dev.cohort.core.memory.tools.MemoryWriteTool;
import dev.cohort.core.team.CheckInboxTool;
import dev.cohort.core.team.SendMessageTool;
import dev.cohort.core.tools.compact.CompactTool;
import dev.cohort.core.tools.cron.CancelCronTool;
import dev.cohort.core.tools.cron.ListCronsTool;
import dev.cohort.core.tools.cron.ScheduleCronTool;
import dev.cohort.core.tools.skills.LoadSkillTool;
import dev.cohort.core.tools.subagent.SpawnSubagentTool;
import dev.cohort.core.tools.todo.TodoWriteTool;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tool names this process knows, for the permission rules: a lower-case rule naming none of them is a typo and is
 * refused. Known are the engine's own tools (by their classes' names), and every tool of a {@link ToolRegistry} built
 * in this process (a service's tools) and of the tool runner's catalogue, added as they are built. The engine names
 * the two tools it reacts to by the constants here, never by their classes.
 */
public final class ToolNames {
    /** The todo tool's name: while it is offered, the loop reminds the agent of unfinished todos. */
    public static final String TODO_WRITE = TodoWriteTool.NAME;
    /** The skill tool's name: while it is offered, the prompt lists the skills. */
    public static final String LOAD_SKILL = LoadSkillTool.NAME;

    private static final Set<String> KNOWN = ConcurrentHashMap.newKeySet();

    static {
        KNOWN.addAll(List.of(TodoWriteTool.NAME, LoadSkillTool.NAME, SpawnSubagentTool.NAME, CompactTool.NAME,
                ScheduleCronTool.NAME, ListCronsTool.NAME, CancelCronTool.NAME, SendMessageTool.NAME,
                CheckInboxTool.NAME, MemoryWriteTool.NAME, MemoryDeleteTool.NAME));
    }

    private ToolNames() {
    }

    /** Adds {@code names} to the known ones. */
    public static void add(Collection<String> names) {
        KNOWN.addAll(names);
    }

    /** {@code true} when {@code name} is a known tool name. */
    public static boolean known(String name) {
        return KNOWN.contains(name);
    }

    /** The known names, sorted. */
    public static List<String> all() {
        return KNOWN.stream().sorted().toList();
    }
}

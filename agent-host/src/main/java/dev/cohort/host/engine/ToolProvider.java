package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Contributes tools to the engines of the roles it serves (CDI beans, collected by {@link EngineAssembly}): an engine
 * built for a role gets the tool runner's workspace tools for that role, then the tools of the providers serving the
 * role, in {@link #order()}, each kept only when it lists the role ({@code Tool#roles}), so a teammate never holds a
 * lead-only tool. A tool name offered twice to one role fails the engine's assembly.
 */
public interface ToolProvider {

    /** The roles whose engines get {@link #tools()} ({@code SUBAGENT} is not one: a subagent uses its parent's). */
    Set<AgentRole> roles();

    /** The tools, called once per engine built; stateless tools may be new instances each time. */
    List<Tool> tools();

    /**
     * Tools of the tool runner's catalogue this provider extends, by name: the engine holds {@code wrap(tool)} in the
     * tool's place (e.g. the lead's {@code create_worktree} that also binds a task of its board).
     */
    default Map<String, UnaryOperator<Tool>> wraps() {
        return Map.of();
    }

    /** Position among the providers of a role, lower first (the order the model is offered the tools in). */
    default int order() {
        return 100;
    }
}

package dev.cohort.host.engine;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import java.util.List;
import java.util.Set;

/**
 * Contributes tools to the engines of the roles it serves (CDI beans, collected by {@link EngineAssembly}): an engine
 * built for a role gets exactly the tools of the providers serving that role, in {@link #order()}, so a teammate never
 * holds a lead-only tool (and the engine's per-role allowlist, {@code Toolsets}, still gates every call). A tool name
 * offered twice to one role fails the engine's assembly.
 */
public interface ToolProvider {

    /** The roles whose engines get {@link #tools()} ({@code SUBAGENT} is not one: a subagent uses its parent's). */
    Set<AgentRole> roles();

    /** The tools, called once per engine built; stateless tools may be new instances each time. */
    List<Tool> tools();

    /** Position among the providers of a role, lower first (the order the model is offered the tools in). */
    default int order() {
        return 100;
    }
}

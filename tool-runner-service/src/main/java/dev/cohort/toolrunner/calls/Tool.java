package dev.cohort.toolrunner.calls;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One workspace tool: what the model is told about it, which agents get it, what a call puts at stake, and how it
 * runs. Adding a tool is one class implementing this (+ its test): the registry finds it, the catalogue
 * ({@code GET /internal/v1/tools}) describes it to the agents, which offer it to their models as it is declared here.
 */
public interface Tool {
    /** Every agent: the lead, teammates and subagents. */
    List<AgentRole> EVERY_AGENT = List.of(AgentRole.LEAD, AgentRole.TEAMMATE, AgentRole.SUBAGENT);

    /** The description and parameter schema the model sees; its name is the tool's. */
    ToolSpecification spec();

    /** The name the model calls it by. */
    default String name() {
        return spec().name();
    }

    /**
     * The argument names it accepts; others are a model-visible error. By default the spec's parameters; a tool with
     * host-only arguments (not offered to the model) lists them too.
     */
    default Set<String> arguments() {
        return spec().parameters().properties().keySet();
    }

    /** {@code true} when it changes the workspace. */
    boolean isMutating();

    /** The agents that get it (default: every agent). */
    default List<AgentRole> roles() {
        return EVERY_AGENT;
    }

    /** What a call puts at stake, for the agents' permission gate (default: a {@code path} argument, when given). */
    default ToolDescriptor.Subject permission() {
        return ToolDescriptor.Subject.PATH;
    }

    /**
     * {@code true} when a read-only call ({@link ToolContext#readOnly()}, plan mode) may still run it, because what it
     * does is confined by read-only mounts ({@code bash}); every other mutating tool is refused in such a call.
     */
    default boolean runsUnderReadOnlyMounts() {
        return !isMutating();
    }

    /** The tool's catalogue entry. */
    default ToolDescriptor descriptor() {
        ToolSpecification spec = spec();
        return new ToolDescriptor(spec.name(), spec.description(), ToolSchemas.toJson(spec.parameters()), isMutating(),
                roles().stream().map(r -> r.name().toLowerCase(Locale.ROOT)).toList(), permission());
    }

    /**
     * Runs the tool. A model-visible failure is thrown as {@link ToolError} (or returned with {@code error} set);
     * {@code durationMs} of the result is filled in by the caller.
     */
    ToolCallResult execute(ToolContext ctx, Args args) throws Exception;
}

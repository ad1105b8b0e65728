package dev.cohort.core.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.Set;

/**
 * One tool the model can call (CONVENTIONS #5): adding a tool is one class implementing this (+ its test), registered
 * in a {@link ToolRegistry}. The file and shell tools are declared in the tool runner, where they run, and reach the
 * engine through its catalogue as {@code RemoteWorkspaceTool}s.
 *
 * <p>Failures come in two kinds, never mixed (CONVENTIONS #6): a failure the model should see (bad arguments, file
 * not found, a rule that forbids the call) is a {@link ToolResult#error} result or a thrown {@link ToolFailure}; a
 * failure that must end the turn (infrastructure down after retries) is a thrown {@link ToolInfrastructureException}.
 * Any other exception is treated as a bug in the tool: logged and shown to the model as an internal error.
 *
 * <p>Arguments reach {@link #execute} already validated against {@link #spec()}'s parameter schema, and only when the
 * agent's allowlist, the permission gate and the PreToolUse hooks let the call through. Identity (team, agent, owner,
 * sender) always comes from the {@link ToolContext}, never from arguments.
 */
public interface Tool {

    /** The roles of a tool every lead and teammate gets. */
    Set<AgentRole> LEAD_AND_TEAMMATES = Set.of(AgentRole.LEAD, AgentRole.TEAMMATE);

    /** The roles of a tool only the lead gets. */
    Set<AgentRole> LEAD_ONLY = Set.of(AgentRole.LEAD);

    /** The name the model calls; unique in a registry. */
    String name();

    /** The description and JSON schema sent to the model; also what arguments are validated against. */
    ToolSpecification spec();

    /**
     * The agents that get the tool: an engine offers an agent of role R only the tools listing R (a host may narrow
     * it further per agent). A subagent gets only tools listing {@link AgentRole#SUBAGENT}.
     */
    default Set<AgentRole> roles() {
        return LEAD_AND_TEAMMATES;
    }

    /**
     * {@code true} when the call can change the workspace or the shared world (files, processes, tasks, crons,
     * messages). {@code plan} mode only runs tools that return {@code false} (and read-only shell commands).
     */
    boolean isMutating();

    /**
     * What the call puts at stake, for the permission gate: a command, a file written, a destructive act, or nothing
     * beyond {@link #isMutating()}. The gate decides on this, never on the tool's name. {@code args} are validated.
     * By default a {@code path} argument is the subject a team rule is matched against.
     */
    default PermissionSubject permissionSubject(ObjectNode args) {
        return args.hasNonNull("path") ? new PermissionSubject.Path(args.path("path").asText()) : PermissionSubject.NONE;
    }

    /** Runs the call. Must be safe to call from several agents' threads at once (per-agent state lives in the context). */
    ToolResult execute(ToolCall call, ToolContext ctx);
}

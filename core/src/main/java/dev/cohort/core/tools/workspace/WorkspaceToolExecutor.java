package dev.cohort.core.tools.workspace;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Executes a workspace tool ({@code bash}, {@code read_file}, {@code write_file}, {@code edit_file}, {@code glob},
 * {@code grep}) where the files are. In a service this is the tool runner ({@link ToolRunnerWorkspaceExecutor});
 * tests may use a local implementation confined to a temporary directory. The engine never touches files itself.
 */
@FunctionalInterface
public interface WorkspaceToolExecutor {

    /**
     * Runs one call.
     *
     * @param tool   the tool name
     * @param callId the model's call id: an executor that records calls answers a repeated id from its record
     * @param args   the validated arguments
     * @param target who calls and where (host-chosen cwd)
     * @return the outcome; a failure the model should see is an outcome with {@code error} set
     * @throws dev.cohort.core.tools.ToolInfrastructureException when the executor is unreachable after retries
     */
    ToolOutcome execute(String tool, String callId, ObjectNode args, Target target);

    /**
     * The caller of a workspace tool: team, agent, the host-chosen working directory, and whether the agent works
     * read-only (plan mode), which the tool runner then enforces with read-only mounts.
     */
    record Target(String team, String agent, String cwd, boolean readOnly) {

        /** A caller that may write. */
        public Target(String team, String agent, String cwd) {
            this(team, agent, cwd, false);
        }
    }
}

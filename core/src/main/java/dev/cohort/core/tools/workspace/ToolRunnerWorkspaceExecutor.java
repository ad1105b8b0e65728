package dev.cohort.core.tools.workspace;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.toolrunner.ToolRunnerException;
import java.util.Map;

/**
 * The production {@link WorkspaceToolExecutor}: {@code POST /internal/v1/tools/{name}} on tool-runner-service via
 * {@link ToolRunnerClient}. The runner answers a repeated call id from its record, so a resumed turn never runs a
 * tool twice. An unreachable runner (after the client's retries) ends the turn.
 */
public final class ToolRunnerWorkspaceExecutor implements WorkspaceToolExecutor {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private final ToolRunnerClient client;

    public ToolRunnerWorkspaceExecutor(ToolRunnerClient client) {
        this.client = client;
    }

    @Override
    public ToolOutcome execute(String tool, String callId, ObjectNode args, Target target) {
        Map<String, Object> argMap = Json.MAPPER.convertValue(args, MAP);
        ToolCallResult r;
        try {
            r = client.call(tool, new ToolCallRequest(target.team(), target.agent(), callId, target.cwd(), argMap,
                    target.readOnly() ? Boolean.TRUE : null));
        } catch (ToolRunnerException e) {
            if (e.status() == 400 || e.status() == 404 || e.status() == 422) {
                // the runner refused this call's content (unknown tool, bad arguments): the model can fix it
                return ToolOutcome.failure(e.getMessage());
            }
            throw new ToolInfrastructureException("tool runner failed for " + tool + ": " + e.getMessage(), e);
        }
        return new ToolOutcome(r.output(), r.error(), r.exitCode(), Boolean.TRUE.equals(r.truncated()), r.outputRef(),
                r.durationMs(), r.stderr());
    }
}

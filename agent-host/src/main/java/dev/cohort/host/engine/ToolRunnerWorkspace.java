package dev.cohort.host.engine;

import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.workspace.ToolRunnerWorkspaceExecutor;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A service's connection to tool-runner-service: the one {@link ToolRunnerClient} of the replica and the workspace
 * executor the file and shell tools run through. The URL, token and timeout are the service's own keys (the lead's
 * {@code cohort.lead.tool-runner-*}); the retry policy is the shared {@code cohort.engine.tool-runner-retry.*}
 * ({@link EngineAssembly#toolRunner}).
 *
 * @param client   the client (also for the host's own calls, e.g. preparing a team's workspace)
 * @param executor the tools' workspace executor over {@code client}
 */
public record ToolRunnerWorkspace(ToolRunnerClient client, WorkspaceToolExecutor executor) {

    public ToolRunnerWorkspace {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(executor, "executor");
    }

    /**
     * @param url     the runner's base URL, e.g. {@code http://127.0.0.1:8083}, or its replicas' URLs separated by commas
     * @param token   its bearer token; absent or blank = none
     * @param timeout longest wait for one answer (must exceed the longest bash timeout)
     * @param retry   how a busy or restarting runner is retried
     */
    public static ToolRunnerWorkspace connect(String url, Optional<String> token, Duration timeout,
            ToolRunnerClient.Retry retry) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("the tool runner's URL is not set");
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the tool runner's timeout must be positive, not " + timeout);
        }
        ToolRunnerClient client = new ToolRunnerClient(url, token.filter(s -> !s.isBlank()).orElse(null), timeout,
                retry);
        return new ToolRunnerWorkspace(client, new ToolRunnerWorkspaceExecutor(client));
    }
}

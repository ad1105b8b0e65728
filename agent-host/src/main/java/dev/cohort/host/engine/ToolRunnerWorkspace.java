package dev.cohort.host.engine;

import dev.cohort.core.http.ServiceClient;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.toolrunner.ToolRunnerException;
import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import dev.cohort.core.tools.workspace.ToolRunnerWorkspaceExecutor;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jboss.logging.Logger;

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
    private static final Logger LOG = Logger.getLogger(ToolRunnerWorkspace.class);

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
            ServiceClient.Retry retry) {
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

    /**
     * The runner's catalogue of workspace tools, asked for again while the runner does not answer (it may start after
     * this service), for at most {@code wait} ({@link WorkspaceTools} keeps it).
     *
     * @throws IllegalStateException when the runner did not answer within {@code wait}, refused the request, or
     *                               served a catalogue that cannot be used
     */
    public WorkspaceCatalogue catalogue(Duration wait) {
        Instant deadline = Instant.now().plus(wait);
        while (true) {
            try {
                return new WorkspaceCatalogue(client.catalogue());
            } catch (ToolRunnerException e) {
                if (e.status() != 0 || Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("cannot read the tool runner's catalogue of workspace tools: "
                            + e.getMessage(), e);
                }
                LOG.warnf("the tool runner does not answer yet (%s); asking for its catalogue again", e.getMessage());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the tool runner's catalogue", e);
            }
        }
    }
}

package dev.cohort.toolrunner.remote;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerTools;
import java.util.List;
import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import dev.cohort.platform.kafka.KafkaEventSink;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.sandbox.kubernetes.AgentSandboxes;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.logging.Log;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The control half's team sandboxes ({@code role=control}): {@link RemoteTeams} on the Kubernetes API of the pod's
 * service account, in its namespace, publishing what the sandboxes report on Kafka as the runner does for its own jobs.
 * Idle in the other roles.
 */
@ApplicationScoped
public class RemoteSandboxes {
    /** How often idle sandboxes are looked for. */
    private static final Duration IDLE_CHECK = Duration.ofSeconds(30);

    @Inject
    ToolRunnerConfig config;
    /** Looked up only in the control role: no other role makes a Kafka client here. */
    @Inject
    Instance<AgentMessagePublisher> publisher;
    @Inject
    Instance<KafkaEventSink> events;

    private KubernetesClient client;
    private RemoteTeams teams;
    private ScheduledExecutorService timer;

    void onStart(@Observes StartupEvent ev) {
        if (config.role() != ToolRunnerConfig.Role.CONTROL) {
            return;
        }
        TeamTokens tokens = new TeamTokens(config.token().orElse(null));
        client = new KubernetesClientBuilder().build();
        String namespace = config.kubernetes().namespace().filter(n -> !n.isBlank()).orElse(client.getNamespace());
        if (namespace == null) {
            throw new IllegalStateException("cohort.tool-runner.kubernetes.namespace is not set and the Kubernetes"
                    + " client found no namespace (run in a pod, or set COHORT_NAMESPACE)");
        }
        ToolRunnerConfig.Kubernetes k = config.kubernetes();
        AgentSandboxes sandboxes = new AgentSandboxes(client,
                new AgentSandboxes.Settings(namespace, k.warmPool(), k.agentPort(), k.readyTimeout()));
        teams = new RemoteTeams(sandboxes, tokens,
                new RemoteTeams.Settings(config.bash().maxTimeout().plusMinutes(1), config.sandboxIdleTimeout()),
                new RemoteTeams.Announcer() {
                    @Override
                    public void started(BackgroundJob j) {
                        events.get().emit(BackgroundJobs.startedEvent(j.team(), j.agent(), j.id(), j.callId(), j.command()));
                    }

                    @Override
                    public CompletionStage<?> finished(BackgroundJob j) {
                        events.get().emit(BackgroundJobs.finishedEvent(j));
                        return publisher.get().send(BackgroundJobs.doneMessage(j));
                    }
                });
        timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("team-sandboxes")
                .unstarted(r));
        timer.scheduleWithFixedDelay(this::announce, k.noticePoll().toMillis(), k.noticePoll().toMillis(),
                TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::pauseIdle, IDLE_CHECK.toMillis(), IDLE_CHECK.toMillis(),
                TimeUnit.MILLISECONDS);
        Log.infof("team sandboxes: claimed from warm pool %s in namespace %s, agent port %d", k.warmPool(), namespace,
                k.agentPort());
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (timer != null) {
            timer.shutdownNow();
        }
        if (teams != null) {
            teams.close();
        }
        if (client != null) {
            client.close();
        }
    }

    /** Runs the call in its team's sandbox pod. */
    public ToolCallResult call(String name, ToolCallRequest req) {
        if (teams == null) {
            throw new IllegalStateException("team sandbox pods are used only with cohort.tool-runner.role=control");
        }
        return teams.call(name, req);
    }

    /** Lists the team's MCP servers' tools in its sandbox pod. */
    public List<McpServerTools> mcpTools(McpListRequest req) {
        if (teams == null) {
            throw new IllegalStateException("team sandbox pods are used only with cohort.tool-runner.role=control");
        }
        return teams.mcpTools(req);
    }

    private void announce() {
        try {
            teams.announce();
        } catch (RuntimeException e) {
            Log.warnf("background notices of the team sandboxes not read: %s", e.toString());
        }
    }

    private void pauseIdle() {
        try {
            teams.pauseIdle();
        } catch (RuntimeException e) {
            Log.warnf("idle team sandboxes not paused: %s", e.toString());
        }
    }
}

package dev.cohort.toolrunner.remote;

import dev.cohort.core.mcp.McpListRequest;
import dev.cohort.core.mcp.McpServerConfig;
import dev.cohort.core.mcp.McpServerTools;
import dev.cohort.core.mcp.McpToolInfo;
import dev.cohort.toolrunner.McpPeers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallRequest;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.devstack.Ports;
import dev.cohort.devstack.ServiceProcess;
import dev.cohort.toolrunner.sandbox.kubernetes.AgentSandboxes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control half's calls into a team's sandbox pod, end to end on this machine: the sandbox agent is the packaged
 * tool runner started as a real process the way the pod template starts it ({@code QUARKUS_PROFILE=sandbox}: no
 * database, no Kafka, no credential in its environment), and the Kubernetes API is fabric8's <strong>mock</strong> API
 * server in CRUD mode, with this test playing agent-sandbox's controllers (it binds each claim to a Sandbox, marks it
 * Ready with a service name that resolves to this machine, and unready while suspended). What only a cluster shows is
 * listed in k8s/README.md.
 */
class TeamSandboxPodIT {
    static final String NAMESPACE = "cohort";
    static final Duration START = Duration.ofSeconds(90);
    static final String KEY = "control-key-" + System.nanoTime();

    KubernetesMockServer server;
    KubernetesClient client;
    ScheduledExecutorService controller;
    Path base;
    int agentPort;
    ServiceProcess agent;
    RemoteTeams teams;
    final List<String> announced = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        assertThat(Path.of("target", "quarkus-app", "quarkus-run.jar")).as("package the module first (verify does)").exists();
        List<CustomResourceDefinitionContext> kinds = List.of(AgentSandboxes.SANDBOX_CLAIM, AgentSandboxes.SANDBOX).stream()
                .map(k -> new CustomResourceDefinitionContext.Builder().withGroup(k.getGroup()).withVersion(k.getVersion())
                        .withKind(k.getKind()).withPlural(k.getPlural()).withScope("Namespaced").build())
                .toList();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(kinds), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
        controller = Executors.newSingleThreadScheduledExecutor();
        controller.scheduleWithFixedDelay(this::actAsTheControllers, 0, 50, TimeUnit.MILLISECONDS);
        base = Files.createTempDirectory("cohort-sandbox-pod");
        agentPort = Ports.free();
        agent = startAgent();
        teams = new RemoteTeams(new AgentSandboxes(client, new AgentSandboxes.Settings(NAMESPACE, "team-sandbox", agentPort,
                Duration.ofSeconds(60))), new TeamTokens(KEY), new RemoteTeams.Settings(Duration.ofSeconds(60),
                Duration.ofMillis(1)), new RemoteTeams.Announcer() {
                    @Override
                    public void started(BackgroundJob job) {
                        announced.add("started " + job.id());
                    }

                    @Override
                    public CompletionStage<?> finished(BackgroundJob job) {
                        announced.add(job.status() + " " + job.id() + " " + job.summary().strip());
                        return CompletableFuture.completedFuture(null);
                    }
                });
    }

    @AfterEach
    void stop() throws IOException {
        teams.close();
        if (agent != null) {
            agent.close();
        }
        controller.shutdownNow();
        client.close();
        server.destroy();
        try (var all = Files.walk(base)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void theTeamsCallsRunInItsSandboxWhichServesNoOtherTeamAndHoldsNoCredential() throws Exception {
        assertThat(call("bash", "acme", "c-1", Map.of("command", "echo hello > hello.txt; cat hello.txt")).output())
                .isEqualTo("hello\n");
        assertThat(Files.readString(base.resolve("workspace").resolve("hello.txt"))).isEqualTo("hello\n");
        // the file tools run in the sandbox too: a path outside its workspace is refused there
        assertThat(call("read_file", "acme", "c-2", Map.of("path", "hello.txt")).output()).contains("hello");
        assertThat(call("read_file", "acme", "c-3", Map.of("path", "/etc/hostname")).error())
                .contains("outside the workspace");
        // one claim, bound to one sandbox, for the team
        assertThat(client.genericKubernetesResources(AgentSandboxes.SANDBOX_CLAIM).inNamespace(NAMESPACE).list().getItems())
                .hasSize(1);

        // the sandbox is bound to acme: neither another team's call nor a call without acme's token runs there
        var http = HttpClient.newHttpClient();
        var wrongToken = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + agentPort + "/internal/v1/tools/bash"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + new TeamTokens("other-key").of("acme"))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"team\":\"acme\",\"agent\":\"lead\",\"callId\":\"x-1\",\"args\":{\"command\":\"touch pwned\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrongToken.statusCode()).isEqualTo(401);
        var rebind = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + agentPort + "/internal/v1/sandbox/binding"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"team\":\"globex\",\"token\":\"mine\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(rebind.statusCode()).isEqualTo(409);
        assertThat(base.resolve("workspace").resolve("pwned")).doesNotExist();

        // the agent's environment holds no database, Kafka or tool-runner credential, and not the control key
        String environ = new String(Files.readAllBytes(Path.of("/proc", Long.toString(agent.pid()), "environ")),
                StandardCharsets.UTF_8);
        assertThat(environ).doesNotContain("COHORT_DB", "KAFKA", "COHORT_TOOL_RUNNER_TOKEN", "PASSWORD", KEY);
        // and a command sees none of it either
        assertThat(call("bash", "acme", "c-4", Map.of("command", "cat /proc/" + agent.pid() + "/environ | tr '\\0' '\\n'"))
                .output()).doesNotContain(KEY, "PASSWORD");
    }

    @Test
    void aRestartedAgentIsBoundAgainAndACallCutOffMidwayIsNotSentAgain() throws Exception {
        assertThat(call("bash", "acme", "c-1", Map.of("command", "echo one >> runs.txt")).error()).isNull();

        // the agent restarts (a container restart): it lost its binding; the next call binds it again and runs once
        agent.kill();
        agent = startAgent();
        assertThat(call("bash", "acme", "c-2", Map.of("command", "echo two >> runs.txt; cat runs.txt")).output())
                .isEqualTo("one\ntwo\n");

        // the agent dies while a call runs: the call's outcome is unknown and it is not sent again
        Future<ToolCallResult> cut = Executors.newVirtualThreadPerTaskExecutor().submit(() ->
                call("bash", "acme", "c-3", Map.of("command", "echo three >> runs.txt; sleep 30")));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(base.resolve("workspace").resolve("runs.txt"))
                .contains("three"));
        agent.kill();
        ToolCallResult r = cut.get(60, TimeUnit.SECONDS);
        assertThat(r.error()).contains("rule: sandbox-stopped");
        agent = startAgent();
        assertThat(call("bash", "acme", "c-4", Map.of("command", "cat runs.txt")).output()).isEqualTo("one\ntwo\nthree\n");
    }

    @Test
    void backgroundJobsAreAnnouncedByTheControlHalfAndAnIdleSandboxIsPausedAndResumed() throws Exception {
        ToolCallResult started = call("bash", "acme", "c-1", Map.of("command", "echo built", "run_in_background", true));
        String id = started.outputRef().substring("cohort-output://".length());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            teams.announce();
            assertThat(announced).contains("completed " + id + " built");
        });
        assertThat(announced).filteredOn(a -> a.startsWith("started ")).containsOnlyOnce("started " + id);
        // acknowledged: not announced again
        int before = announced.size();
        teams.announce();
        assertThat(announced).hasSize(before);

        // idle (its idle timeout here is a millisecond): paused, then resumed by the next call, its files kept
        assertThat(teams.pauseIdle()).containsExactly("acme");
        assertThat(operatingMode()).isEqualTo("Suspended");
        assertThat(call("bash", "acme", "c-2", Map.of("command", "ls -a")).output()).contains(".git");
        assertThat(operatingMode()).isEqualTo("Running");
    }

    @Test
    void aTeamsMcpServerRunsInItsSandboxPodAndOneGivenSecretsInItsEnvironmentIsRefusedThere() throws Exception {
        McpPeers p = McpPeers.required();
        McpServerConfig everything = new McpServerConfig("everything", "stdio", p.node().toString(),
                List.of(p.everything().toString(), "stdio"), null, null, null, null, "api");
        McpServerTools listed = teams.mcpTools(new McpListRequest("acme", "lead", false, List.of(everything))).get(0);
        assertThat(listed.error()).isNull();
        assertThat(listed.tools()).extracting(McpToolInfo::name).contains("echo");
        ToolCallResult r = teams.call("mcp__everything__echo", new ToolCallRequest("acme", "lead", "m-1", null,
                Map.of("message", "in the pod"), null, everything));
        assertThat(r.error()).isNull();
        assertThat(r.output()).contains("Echo: in the pod");

        // the pod's commands run unconfined beside its servers: a server given secrets in its environment is not
        // started there
        McpServerConfig withEnv = new McpServerConfig("keyed", "stdio", p.node().toString(),
                List.of(p.everything().toString(), "stdio"), Map.of("API_KEY", "pod-secret-1234"), null, null, null,
                "api");
        McpServerTools refused = teams.mcpTools(new McpListRequest("acme", "lead", false, List.of(withEnv))).get(0);
        assertThat(refused.error()).contains("MCP server 'keyed' is given env values").contains("sandbox pod")
                .doesNotContain("pod-secret-1234");
    }

    private ToolCallResult call(String tool, String team, String callId, Map<String, Object> args) {
        return teams.call(tool, new ToolCallRequest(team, "lead", callId, null, args));
    }

    private ServiceProcess startAgent() throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_PROFILE", "sandbox");
        env.put("COHORT_WORKSPACE_ROOT", Files.createDirectories(base.resolve("workspace")).toString());
        env.put("COHORT_STATE_DIR", Files.createDirectories(base.resolve("state")).toString());
        return ServiceProcess.start("sandbox-agent", Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath(),
                agentPort, env, base, START);
    }

    private String operatingMode() {
        GenericKubernetesResource s = client.genericKubernetesResources(AgentSandboxes.SANDBOX).inNamespace(NAMESPACE)
                .list().getItems().get(0);
        Object spec = s.getAdditionalProperties().get("spec");
        return spec instanceof Map<?, ?> m && m.get("operatingMode") != null ? m.get("operatingMode").toString() : "Running";
    }

    /** agent-sandbox's controllers, as far as this test needs them. */
    private void actAsTheControllers() {
        try {
            var claims = client.genericKubernetesResources(AgentSandboxes.SANDBOX_CLAIM).inNamespace(NAMESPACE);
            var sandboxes = client.genericKubernetesResources(AgentSandboxes.SANDBOX).inNamespace(NAMESPACE);
            for (GenericKubernetesResource claim : claims.list().getItems()) {
                if (claim.getAdditionalProperties().get("status") == null) {
                    String name = "pool-" + claim.getMetadata().getName();
                    sandboxes.resource(new GenericKubernetesResourceBuilder().withApiVersion("agents.x-k8s.io/v1beta1")
                            .withKind("Sandbox").withNewMetadata().withName(name).endMetadata()
                            .addToAdditionalProperties("spec", new HashMap<>(Map.of("operatingMode", "Running")))
                            .addToAdditionalProperties("status", status("True")).build()).create();
                    claim.getAdditionalProperties().put("status", Map.of("sandbox", Map.of("name", name)));
                    claims.resource(claim).update();
                }
            }
            for (GenericKubernetesResource s : sandboxes.list().getItems()) {
                Object spec = s.getAdditionalProperties().get("spec");
                boolean suspended = spec instanceof Map<?, ?> m && "Suspended".equals(m.get("operatingMode"));
                String want = suspended ? "False" : "True";
                Map<?, ?> st = (Map<?, ?>) s.getAdditionalProperties().get("status");
                Map<?, ?> cond = (Map<?, ?>) ((List<?>) st.get("conditions")).get(0);
                if (!want.equals(cond.get("status"))) {
                    s.getAdditionalProperties().put("status", status(want));
                    sandboxes.resource(s).update();
                }
            }
        } catch (RuntimeException e) {
            // the next round tries again
        }
    }

    private static Map<String, Object> status(String ready) {
        Map<String, Object> condition = Map.of("type", "Ready", "status", ready, "reason",
                "True".equals(ready) ? "DependenciesReady" : "DependenciesNotReady", "message", "",
                "lastTransitionTime", "2025-01-01T00:00:00Z");
        return "True".equals(ready) ? Map.of("conditions", List.of(condition), "serviceFQDN", "127.0.0.1")
                : Map.of("conditions", List.of(condition));
    }
}

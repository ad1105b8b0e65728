package dev.cohort.toolrunner.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.toolrunner.sandbox.Sandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AgentSandboxes} against fabric8's <strong>mock</strong> API server ({@code kubernetes-server-mock}), not a
 * cluster: in CRUD mode it stores and serves objects and watches, and nothing plays agent-sandbox's controllers, so the
 * test plays them where a claim would be bound (it writes the claim's {@code status.sandbox.name} and the Sandbox with
 * its Ready condition and serviceFQDN, as v0.5.6's controllers would). The 403 case uses the mock's expectations mode.
 * What only a cluster with the controller shows (binding from the warm pool, the pod really suspended, RBAC enforced)
 * is listed in k8s/README.md.
 */
class AgentSandboxesTest {

    static final String NAMESPACE = "cohort";

    KubernetesMockServer server;
    KubernetesClient client;
    AgentSandboxes sandboxes;

    @BeforeEach
    void startTheMockApiServerInCrudMode() throws Exception {
        // CRUD mode: the dispatcher stores what it is sent; it serves only the custom kinds it is told of, here without
        // a status subresource, so the test can write a status with a plain update where the controllers use /status
        List<CustomResourceDefinitionContext> kinds = List.of(AgentSandboxes.SANDBOX_CLAIM, AgentSandboxes.SANDBOX).stream()
                .map(k -> new CustomResourceDefinitionContext.Builder().withGroup(k.getGroup()).withVersion(k.getVersion())
                        .withKind(k.getKind()).withPlural(k.getPlural()).withScope("Namespaced").build())
                .toList();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(kinds), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
        sandboxes = new AgentSandboxes(client, new AgentSandboxes.Settings(NAMESPACE, "team-sandbox", 7070, Duration.ofSeconds(30)));
    }

    @AfterEach
    void stopIt() {
        client.close();
        server.destroy();
    }

    @Test
    void claimingCreatesOneClaimFromTheWarmPoolLabelledWithTheTeamAndASecondClaimReusesIt() {
        GenericKubernetesResource first = sandboxes.claim("acme");
        GenericKubernetesResource second = sandboxes.claim("acme");

        List<GenericKubernetesResource> claims = client.genericKubernetesResources(AgentSandboxes.SANDBOX_CLAIM).inNamespace(NAMESPACE).list().getItems();
        assertThat(claims).hasSize(1);
        GenericKubernetesResource claim = claims.get(0);
        assertThat(claim.getMetadata().getName()).isEqualTo(AgentSandboxes.claimName("acme")).matches("cohort-team-acme-[0-9a-f]{8}");
        assertThat(claim.getMetadata().getLabels()).containsEntry("cohort.dev/team", "acme").containsEntry("app.kubernetes.io/managed-by", "cohort-tool-runner");
        assertThat(claim.getMetadata().getAnnotations()).containsEntry("cohort.dev/team", "acme");
        assertThat(claim.getAdditionalProperties().get("spec")).isEqualTo(Map.of("warmPoolRef", Map.of("name", "team-sandbox"),
                "additionalPodMetadata", Map.of("labels", Map.of("cohort.dev/team", "acme"))));
        assertThat(second.getMetadata().getUid()).isEqualTo(first.getMetadata().getUid());
    }

    @Test
    void claimNamesAreDnsLabelsDistinctPerTeamEvenWhenLongTeamsShareAPrefix() {
        String a = "a".repeat(50) + "-one";
        String b = "a".repeat(50) + "-two";
        assertThat(AgentSandboxes.claimName(a)).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
        assertThat(AgentSandboxes.claimName(a)).isNotEqualTo(AgentSandboxes.claimName(b));
        assertThat(AgentSandboxes.claimName("acme")).isEqualTo(AgentSandboxes.claimName("acme"));
    }

    @Test
    void theReadyWaitReturnsTheBoundSandboxsServiceAndTheAgentPortOnceTheControllerMarksItReady() {
        sandboxes.claim("acme");
        // the claim controller binds a warm sandbox (its pool-generated name, not the claim's) and the sandbox
        // controller reports it Ready with its headless Service
        actAsTheControllerBinding("acme", "team-sandbox-x7k2p");
        createSandbox("team-sandbox-x7k2p", "True", "team-sandbox-x7k2p.cohort.svc.cluster.local");

        SandboxEndpoint endpoint = sandboxes.awaitReady("acme");

        assertThat(endpoint).isEqualTo(new SandboxEndpoint("team-sandbox-x7k2p", "team-sandbox-x7k2p.cohort.svc.cluster.local", 7070));
    }

    @Test
    void theReadyWaitSeesTheSandboxTurnReadyWhileItWaits() throws Exception {
        sandboxes.claim("acme");
        actAsTheControllerBinding("acme", "team-sandbox-x7k2p");
        createSandbox("team-sandbox-x7k2p", "False", "");
        var waiting = CompletableFuture.supplyAsync(() -> sandboxes.awaitReady("acme"));

        setSandboxStatus("team-sandbox-x7k2p", "True", "team-sandbox-x7k2p.cohort.svc.cluster.local");

        assertThat(waiting.get(30, TimeUnit.SECONDS).host()).isEqualTo("team-sandbox-x7k2p.cohort.svc.cluster.local");
    }

    @Test
    void theReadyWaitTimesOutNamingTheTeamTheSandboxAndTheMissingConditionWhenItNeverTurnsReady() {
        AgentSandboxes impatient = new AgentSandboxes(client, new AgentSandboxes.Settings(NAMESPACE, "team-sandbox", 7070, Duration.ofMillis(300)));
        impatient.claim("acme");
        actAsTheControllerBinding("acme", "team-sandbox-x7k2p");
        createSandbox("team-sandbox-x7k2p", "False", "");

        assertThatThrownBy(() -> impatient.awaitReady("acme")).isInstanceOfSatisfying(SandboxLifecycleException.class, e -> {
            assertThat(e.reason()).isEqualTo(SandboxLifecycleException.Reason.TIMEOUT);
            assertThat(e.getMessage()).isEqualTo("team acme: Sandbox cohort/team-sandbox-x7k2p: not ready within PT0.3S: the Sandbox is not"
                    + " Ready with a status.serviceFQDN (Ready=False reason DependenciesNotReady)");
        });
    }

    @Test
    void theReadyWaitTimesOutOnAClaimNeverBound() {
        AgentSandboxes impatient = new AgentSandboxes(client, new AgentSandboxes.Settings(NAMESPACE, "team-sandbox", 7070, Duration.ofMillis(300)));
        impatient.claim("acme");

        assertThatThrownBy(() -> impatient.awaitReady("acme")).isInstanceOfSatisfying(SandboxLifecycleException.class, e -> {
            assertThat(e.reason()).isEqualTo(SandboxLifecycleException.Reason.TIMEOUT);
            assertThat(e.getMessage()).isEqualTo("team acme: SandboxClaim cohort/" + AgentSandboxes.claimName("acme")
                    + ": not ready within PT0.3S: the claim is not bound to a Sandbox (status.sandbox.name empty)");
        });
    }

    @Test
    void pauseSuspendsTheBoundSandboxAndResumeRunsItAgain() {
        sandboxes.claim("acme");
        actAsTheControllerBinding("acme", "team-sandbox-x7k2p");
        createSandbox("team-sandbox-x7k2p", "True", "team-sandbox-x7k2p.cohort.svc.cluster.local");

        sandboxes.pause("acme");
        assertThat(operatingMode("team-sandbox-x7k2p")).isEqualTo("Suspended");

        sandboxes.resume("acme");
        assertThat(operatingMode("team-sandbox-x7k2p")).isEqualTo("Running");
        // the rest of the Sandbox is the controllers': the merge patch left it alone
        assertThat(sandbox("team-sandbox-x7k2p").getAdditionalProperties().get("spec")).isEqualTo(Map.of(
                "operatingMode", "Running", "podTemplate", Map.of("spec", Map.of("containers", List.of(Map.of("name", "sandbox"))))));
    }

    @Test
    void pausingATeamWithoutAClaimIsANotFoundNamingTheClaim() {
        assertThatThrownBy(() -> sandboxes.pause("acme")).isInstanceOfSatisfying(SandboxLifecycleException.class, e -> {
            assertThat(e.reason()).isEqualTo(SandboxLifecycleException.Reason.NOT_FOUND);
            assertThat(e.resource()).isEqualTo("SandboxClaim cohort/" + AgentSandboxes.claimName("acme"));
        });
    }

    @Test
    void releaseDeletesTheTeamsClaimAndReleasingAgainIsNoError() {
        sandboxes.claim("acme");
        sandboxes.claim("other");

        assertThat(sandboxes.release("acme")).isTrue();

        assertThat(client.genericKubernetesResources(AgentSandboxes.SANDBOX_CLAIM).inNamespace(NAMESPACE).list().getItems())
                .extracting(c -> c.getMetadata().getName()).containsExactly(AgentSandboxes.claimName("other"));
        assertThat(sandboxes.release("acme")).isFalse();
    }

    @Test
    void aClaimOfTheSameNameOwnedByAnotherTeamIsNeverShared() {
        client.genericKubernetesResources(AgentSandboxes.SANDBOX_CLAIM).inNamespace(NAMESPACE).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("extensions.agents.x-k8s.io/v1beta1").withKind("SandboxClaim")
                .withNewMetadata().withName(AgentSandboxes.claimName("acme")).withAnnotations(Map.of("cohort.dev/team", "intruder")).endMetadata()
                .addToAdditionalProperties("spec", Map.of("warmPoolRef", Map.of("name", "team-sandbox"))).build()).create();

        assertThatThrownBy(() -> sandboxes.claim("acme")).isInstanceOfSatisfying(SandboxLifecycleException.class, e -> {
            assertThat(e.reason()).isEqualTo(SandboxLifecycleException.Reason.CONFLICT);
            assertThat(e.getMessage()).endsWith("exists but belongs to team intruder");
        });
    }

    @Test
    void aBadTeamNameIsRefusedBeforeAnyApiCall() {
        int before = server.getRequestCount();
        for (String bad : List.of("", "Acme", "../x", "a b", "-acme", "a".repeat(64))) {
            assertThatThrownBy(() -> sandboxes.claim(bad)).as(bad).isInstanceOfSatisfying(SandboxLifecycleException.class,
                    e -> assertThat(e.reason()).isEqualTo(SandboxLifecycleException.Reason.INVALID_TEAM));
        }
        assertThatThrownBy(() -> sandboxes.release(null)).isInstanceOf(SandboxLifecycleException.class);
        assertThatThrownBy(() -> sandboxes.pause("UPPER")).isInstanceOf(SandboxLifecycleException.class);
        assertThat(server.getRequestCount()).isEqualTo(before);
    }

    @Test
    void aForbiddenAnswerBecomesAnErrorNamingTheTeamTheClaimAndTheRole() throws Exception {
        // expectations mode: the mock answers exactly what it is told (CRUD mode never refuses)
        KubernetesMockServer refusing = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), false);
        refusing.init(InetAddress.getLoopbackAddress(), 0);
        try (KubernetesClient c = refusing.createClient()) {
            String name = AgentSandboxes.claimName("acme");
            refusing.expect().get().withPath("/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/cohort/sandboxclaims/" + name)
                    .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").withMessage("sandboxclaims.extensions.agents.x-k8s.io \""
                            + name + "\" is forbidden: User \"system:serviceaccount:cohort:tool-runner-service\" cannot get resource"
                            + " \"sandboxclaims\" in API group \"extensions.agents.x-k8s.io\" in the namespace \"cohort\"").build())
                    .always();
            AgentSandboxes forbidden = new AgentSandboxes(c, AgentSandboxes.Settings.defaults(NAMESPACE));

            assertThatThrownBy(() -> forbidden.claim("acme")).isInstanceOfSatisfying(SandboxLifecycleException.class, e -> {
                assertThat(e.reason()).isEqualTo(SandboxLifecycleException.Reason.FORBIDDEN);
                assertThat(e.team()).isEqualTo("acme");
                assertThat(e.resource()).isEqualTo("SandboxClaim cohort/" + name);
                assertThat(e.getMessage()).startsWith("team acme: SandboxClaim cohort/" + name + ": forbidden (403): the tool runner's"
                        + " ServiceAccount lacks this verb in namespace cohort (Role tool-runner-sandboxes").contains("cannot get resource \"sandboxclaims\"");
            });
        } finally {
            refusing.destroy();
        }
    }

    // ---- the test as agent-sandbox's controllers

    private void actAsTheControllerBinding(String team, String sandbox) {
        var claims = client.genericKubernetesResources(AgentSandboxes.SANDBOX_CLAIM).inNamespace(NAMESPACE);
        GenericKubernetesResource claim = claims.withName(AgentSandboxes.claimName(team)).get();
        claim.getAdditionalProperties().put("status", Map.of("sandbox", Map.of("name", sandbox)));
        claims.resource(claim).update();
    }

    private void createSandbox(String name, String ready, String fqdn) {
        client.genericKubernetesResources(AgentSandboxes.SANDBOX).inNamespace(NAMESPACE).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("agents.x-k8s.io/v1beta1").withKind("Sandbox").withNewMetadata().withName(name).endMetadata()
                .addToAdditionalProperties("spec", Map.of("podTemplate", Map.of("spec", Map.of("containers", List.of(Map.of("name", "sandbox"))))))
                .addToAdditionalProperties("status", status(ready, fqdn)).build()).create();
    }

    private void setSandboxStatus(String name, String ready, String fqdn) {
        var all = client.genericKubernetesResources(AgentSandboxes.SANDBOX).inNamespace(NAMESPACE);
        GenericKubernetesResource s = all.withName(name).get();
        s.getAdditionalProperties().put("status", status(ready, fqdn));
        all.resource(s).update();
    }

    private static Map<String, Object> status(String ready, String fqdn) {
        Map<String, Object> condition = Map.of("type", "Ready", "status", ready, "reason", "True".equals(ready) ? "DependenciesReady" : "DependenciesNotReady",
                "message", "", "lastTransitionTime", "2025-01-01T00:00:00Z");
        return fqdn.isEmpty() ? Map.of("conditions", List.of(condition)) : Map.of("conditions", List.of(condition), "serviceFQDN", fqdn);
    }

    private GenericKubernetesResource sandbox(String name) {
        return client.genericKubernetesResources(AgentSandboxes.SANDBOX).inNamespace(NAMESPACE).withName(name).get();
    }

    private String operatingMode(String name) {
        return String.valueOf(((Map<?, ?>) sandbox(name).getAdditionalProperties().get("spec")).get("operatingMode"));
    }
}

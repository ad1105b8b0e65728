package dev.cohort.toolrunner.sandbox.kubernetes;

import dev.cohort.core.protocol.Ids;
import dev.cohort.toolrunner.sandbox.Sandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A team's sandbox on Kubernetes, through kubernetes-sigs/agent-sandbox v0.5.6 ({@code k8s/components/agent-sandbox}),
 * in the tool runner's own namespace.
 *
 * <p>Sequence: {@link #claim} creates the team's {@code SandboxClaim} (name derived from the team, so every replica of
 * the control half finds the same one; an existing claim is reused) from the warm pool → the claim controller binds a
 * {@code Sandbox} and writes its name to the claim's {@code status.sandbox.name} → {@link #awaitReady} waits (watching,
 * not polling, up to a deadline) for that name and then for the Sandbox's {@code Ready} condition with a
 * {@code status.serviceFQDN} → the endpoint is that host and the agent port. {@link #pause} and {@link #resume} set the
 * Sandbox's {@code spec.operatingMode}; {@link #release} deletes the claim, and with it (owner reference) the Sandbox,
 * its pod and Service.
 *
 * <p>Fields of v0.5.6 used, and why:
 * <ul>
 * <li>claim: {@code SandboxClaim.spec.warmPoolRef.name} (v1beta1 claims name a warm pool, not a template; the pool
 * names the template), and {@code spec.additionalPodMetadata.labels} with the team, so a team's egress allowlist can
 * select its pod.</li>
 * <li>bound sandbox: {@code SandboxClaim.status.sandbox.name} (a warm pool's sandbox keeps its pool-generated name, so
 * it is not the claim's name).</li>
 * <li>ready: the Sandbox's {@code status.conditions[type=Ready].status == "True"}, which the controller sets only when
 * the pod is Running and Ready with an IP and the requested headless Service exists.</li>
 * <li>endpoint: {@code Sandbox.status.serviceFQDN} (the template sets {@code service: true}), not {@code podIPs}: an
 * IP changes when the pod is recreated (resume, eviction), the Service name does not.</li>
 * <li>pause/resume: {@code Sandbox.spec.operatingMode} {@code Suspended}/{@code Running}. v1beta1 has no
 * {@code spec.replicas} (v1alpha1's, converted to it); Suspended deletes the pod but keeps the Sandbox and its PVC, so
 * the team's workspace survives the pause. The claim's {@code spec.lifecycle} ({@code shutdownTime},
 * {@code shutdownPolicy}) is an expiry, not a pause: on expiry the controller deletes the Sandbox and its pod and
 * Service even under {@code Retain} (which keeps only the claim), so a resume would start from an empty workspace.</li>
 * </ul>
 */
public final class AgentSandboxes {

    /** agent-sandbox's extensions API: SandboxClaim (v1beta1 is the stored version of v0.5.6). */
    public static final ResourceDefinitionContext SANDBOX_CLAIM = new ResourceDefinitionContext.Builder()
            .withGroup("extensions.agents.x-k8s.io").withVersion("v1beta1").withKind("SandboxClaim").withPlural("sandboxclaims")
            .withNamespaced(true).build();
    /** agent-sandbox's core API: Sandbox. */
    public static final ResourceDefinitionContext SANDBOX = new ResourceDefinitionContext.Builder()
            .withGroup("agents.x-k8s.io").withVersion("v1beta1").withKind("Sandbox").withPlural("sandboxes")
            .withNamespaced(true).build();

    /** The label and annotation carrying the team on a claim (the annotation always; the label when a valid label value). */
    public static final String TEAM_KEY = "cohort.dev/team";
    /** Who made the claim: lets an operator list Cohort's claims ({@code -l app.kubernetes.io/managed-by=...}). */
    static final String MANAGED_BY = "cohort-tool-runner";
    /** A claim name starts with this: {@code cohort-team-<team>-<hash>}. */
    static final String CLAIM_PREFIX = "cohort-team-";
    /**
     * The team part of a claim name is cut to this length: a cold-started Sandbox and its headless Service take the
     * claim's name, and a Service name is a DNS label of at most 63 characters: 12 (prefix) + 42 + 1 + 8 (hash) = 63.
     * The hash is of the whole team id, so two teams that share the first 42 characters still get two claims.
     */
    static final int TEAM_PART_MAX = 42;
    /** Hex characters of SHA-256(team) in the name: 32 bits, far more than the teams one namespace holds. */
    static final int HASH_CHARS = 8;
    private static final Pattern LABEL_VALUE = Pattern.compile("([a-z0-9]([-a-z0-9]*[a-z0-9])?)?");

    /**
     * Where and how long.
     *
     * @param namespace the tool runner's namespace (the claims, Sandboxes and the warm pool live there; the Role allows
     *        nothing elsewhere)
     * @param warmPool the SandboxWarmPool claims are taken from ({@code team-sandbox} in the component)
     * @param agentPort the sandbox agent's port (the template's container port {@code agent}, 7070)
     * @param readyTimeout how long {@link #awaitReady} waits in all, binding and readiness together: a warm sandbox is
     *        bound in seconds, a cold one waits for scheduling, the image pull and the PVC; two minutes covers a cold
     *        start on a node that already has the image, longer means something is wrong and should be reported
     */
    public record Settings(String namespace, String warmPool, int agentPort, Duration readyTimeout) {

        /** The component's names and a two-minute ready wait. */
        public static Settings defaults(String namespace) {
            return new Settings(namespace, "team-sandbox", 7070, Duration.ofMinutes(2));
        }

        public Settings {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(warmPool, "warmPool");
            Objects.requireNonNull(readyTimeout, "readyTimeout");
            if (agentPort < 1 || agentPort > 65535) {
                throw new IllegalArgumentException("agentPort " + agentPort + " is not a TCP port");
            }
            if (readyTimeout.isNegative() || readyTimeout.isZero()) {
                throw new IllegalArgumentException("readyTimeout must be positive: " + readyTimeout);
            }
        }
    }

    private final KubernetesClient client;
    private final Settings settings;

    public AgentSandboxes(KubernetesClient client, Settings settings) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * The claim's name for a team: {@code cohort-team-<team, at most 42 characters, no trailing '-'>-<8 hex of
     * SHA-256(team)>}, a valid DNS label, the same on every replica.
     *
     * @throws SandboxLifecycleException ({@link SandboxLifecycleException.Reason#INVALID_TEAM}) for an invalid team id
     */
    public static String claimName(String team) {
        requireTeam(team);
        String part = team.length() > TEAM_PART_MAX ? team.substring(0, TEAM_PART_MAX) : team;
        part = part.replaceAll("-+$", "");
        return CLAIM_PREFIX + part + (part.isEmpty() ? "" : "-") + sha256Hex(team).substring(0, HASH_CHARS);
    }

    /**
     * Claims a sandbox for the team: creates its SandboxClaim from the warm pool, or returns the existing one. A
     * concurrent create by another replica (409) is not an error: that claim is returned.
     */
    public GenericKubernetesResource claim(String team) {
        String name = claimName(team);
        String resource = claimResource(name);
        Optional<GenericKubernetesResource> existing = call(team, resource, () -> Optional.ofNullable(claims().withName(name).get()));
        if (existing.isPresent()) {
            return requireOwnedBy(team, resource, existing.get());
        }
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("app.kubernetes.io/managed-by", MANAGED_BY);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("warmPoolRef", Map.of("name", settings.warmPool()));
        if (LABEL_VALUE.matcher(team).matches() && team.length() <= 63) {
            labels.put(TEAM_KEY, team);
            // the team's pod carries the team too, so a NetworkPolicy can give one team an egress allowlist
            spec.put("additionalPodMetadata", Map.of("labels", Map.of(TEAM_KEY, team)));
        }
        GenericKubernetesResource claim = new GenericKubernetesResourceBuilder()
                .withApiVersion(SANDBOX_CLAIM.getGroup() + "/" + SANDBOX_CLAIM.getVersion()).withKind(SANDBOX_CLAIM.getKind())
                .withNewMetadata().withName(name).withNamespace(settings.namespace()).withLabels(labels)
                .withAnnotations(Map.of(TEAM_KEY, team)).endMetadata()
                .addToAdditionalProperties("spec", spec)
                .build();
        try {
            return claims().resource(claim).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                // another replica created it between our get and create: that claim is the team's
                return requireOwnedBy(team, resource, call(team, resource, () -> claims().withName(name).require()));
            }
            throw translate(team, resource, "create", e);
        }
    }

    /**
     * Waits until the team's claim is bound to a Sandbox and that Sandbox is Ready with a Service, and returns its
     * endpoint. One deadline ({@link Settings#readyTimeout}) covers both waits.
     *
     * @throws SandboxLifecycleException {@code TIMEOUT} naming the condition still missing; {@code NOT_FOUND} if the
     *         team has no claim
     */
    public SandboxEndpoint awaitReady(String team) {
        String name = claimName(team);
        String claimResource = claimResource(name);
        Instant deadline = Instant.now().plus(settings.readyTimeout());
        GenericKubernetesResource claim = waitFor(team, claimResource, claims().withName(name)::get,
                c -> boundSandbox(c).isPresent(), deadline, () -> "the claim is not bound to a Sandbox (status.sandbox.name empty)", "bind",
                () -> claims().withName(name).waitUntilCondition(c -> c != null && boundSandbox(c).isPresent(), remaining(deadline), TimeUnit.MILLISECONDS));
        String sandbox = boundSandbox(claim).orElseThrow();
        String sandboxResource = sandboxResource(sandbox);
        GenericKubernetesResource ready = waitFor(team, sandboxResource, sandboxes().withName(sandbox)::get, AgentSandboxes::isReady, deadline,
                () -> "the Sandbox is not Ready with a status.serviceFQDN (" + readySummary(sandboxes().withName(sandbox)) + ")", "ready",
                () -> sandboxes().withName(sandbox).waitUntilCondition(s -> s != null && isReady(s), remaining(deadline), TimeUnit.MILLISECONDS));
        return new SandboxEndpoint(sandbox, statusString(ready, "serviceFQDN"), settings.agentPort());
    }

    /** Pauses an idle team's sandbox: its pod is deleted, the Sandbox and its workspace PVC stay. */
    public void pause(String team) {
        setOperatingMode(team, "Suspended");
    }

    /** Resumes a paused team's sandbox; {@link #awaitReady} then waits for its new pod. */
    public void resume(String team) {
        setOperatingMode(team, "Running");
    }

    /**
     * Releases the team's sandbox: deletes its claim (the controller then deletes the Sandbox it owns, its pod, Service
     * and PVC). Releasing a team without a claim is not an error.
     *
     * @return whether a claim was deleted
     */
    public boolean release(String team) {
        String name = claimName(team);
        String resource = claimResource(name);
        return call(team, resource, () -> !claims().withName(name).delete().isEmpty());
    }

    // ---- the parts

    private void setOperatingMode(String team, String mode) {
        String name = claimName(team);
        String claimResource = claimResource(name);
        GenericKubernetesResource claim = call(team, claimResource, () -> Optional.ofNullable(claims().withName(name).get()))
                .orElseThrow(() -> new SandboxLifecycleException(SandboxLifecycleException.Reason.NOT_FOUND, team, claimResource,
                        "no claim: claim a sandbox before setting it " + mode, null));
        String sandbox = boundSandbox(claim).orElseThrow(() -> new SandboxLifecycleException(SandboxLifecycleException.Reason.NOT_FOUND, team,
                claimResource, "the claim is not bound to a Sandbox yet (status.sandbox.name empty): nothing to set " + mode, null));
        String resource = sandboxResource(sandbox);
        // a merge patch of the one field: the controllers own the rest of the spec and the status
        call(team, resource, () -> sandboxes().withName(sandbox).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"operatingMode\":\"" + mode + "\"}}"));
    }

    private GenericKubernetesResource waitFor(String team, String resource, Supplier<GenericKubernetesResource> current,
            Predicate<GenericKubernetesResource> done, Instant deadline, Supplier<String> missing, String step,
            Supplier<GenericKubernetesResource> watch) {
        GenericKubernetesResource now = call(team, resource, current::get);
        if (now == null) {
            throw new SandboxLifecycleException(SandboxLifecycleException.Reason.NOT_FOUND, team, resource,
                    "does not exist" + ("bind".equals(step) ? ": claim a sandbox first" : ""), null);
        }
        if (done.test(now)) {
            return now;
        }
        try {
            if (remaining(deadline) <= 0) {
                throw new KubernetesClientTimeoutException(now, 0, TimeUnit.MILLISECONDS);
            }
            return call(team, resource, watch);
        } catch (SandboxLifecycleException e) {
            if (e.getCause() instanceof KubernetesClientTimeoutException) {
                throw timeout(team, resource, missing);
            }
            throw e;
        } catch (KubernetesClientTimeoutException e) {
            throw timeout(team, resource, missing);
        }
    }

    private SandboxLifecycleException timeout(String team, String resource, Supplier<String> missing) {
        return new SandboxLifecycleException(SandboxLifecycleException.Reason.TIMEOUT, team, resource,
                "not ready within " + settings.readyTimeout() + ": " + missing.get(), null);
    }

    private static long remaining(Instant deadline) {
        return Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
    }

    private GenericKubernetesResource requireOwnedBy(String team, String resource, GenericKubernetesResource claim) {
        String owner = claim.getMetadata().getAnnotations() == null ? null : claim.getMetadata().getAnnotations().get(TEAM_KEY);
        if (!team.equals(owner)) {
            // the name is the team's, the claim is not (a hash collision, or someone else's object): never share it
            throw new SandboxLifecycleException(SandboxLifecycleException.Reason.CONFLICT, team, resource,
                    "exists but belongs to " + (owner == null ? "no team (no " + TEAM_KEY + " annotation)" : "team " + owner), null);
        }
        return claim;
    }

    private <T> T call(String team, String resource, Supplier<T> step) {
        try {
            return step.get();
        } catch (KubernetesClientTimeoutException e) {
            throw new SandboxLifecycleException(SandboxLifecycleException.Reason.TIMEOUT, team, resource, "timed out", e);
        } catch (KubernetesClientException e) {
            throw translate(team, resource, "call", e);
        }
    }

    private SandboxLifecycleException translate(String team, String resource, String verb, KubernetesClientException e) {
        String apiMessage = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
        return switch (e.getCode()) {
            case 403 -> new SandboxLifecycleException(SandboxLifecycleException.Reason.FORBIDDEN, team, resource,
                    "forbidden (403): the tool runner's ServiceAccount lacks this verb in namespace " + settings.namespace()
                            + " (Role tool-runner-sandboxes, k8s/components/agent-sandbox/rbac.yaml): " + apiMessage, e);
            case 404 -> new SandboxLifecycleException(SandboxLifecycleException.Reason.NOT_FOUND, team, resource,
                    "not found (404) (is agent-sandbox v0.5.6 with its extensions installed?): " + apiMessage, e);
            case 409 -> new SandboxLifecycleException(SandboxLifecycleException.Reason.CONFLICT, team, resource, "conflict (409): " + apiMessage, e);
            default -> new SandboxLifecycleException(SandboxLifecycleException.Reason.API_ERROR, team, resource,
                    (e.getCode() > 0 ? "API error (" + e.getCode() + ")" : "API unreachable") + ": " + apiMessage, e);
        };
    }

    private String claimResource(String name) {
        return "SandboxClaim " + settings.namespace() + "/" + name;
    }

    private String sandboxResource(String name) {
        return "Sandbox " + settings.namespace() + "/" + name;
    }

    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> claims() {
        return client.genericKubernetesResources(SANDBOX_CLAIM).inNamespace(settings.namespace());
    }

    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> sandboxes() {
        return client.genericKubernetesResources(SANDBOX).inNamespace(settings.namespace());
    }

    /** The claim's bound Sandbox: {@code status.sandbox.name}, when set. */
    static Optional<String> boundSandbox(GenericKubernetesResource claim) {
        Object status = claim.getAdditionalProperties().get("status");
        if (status instanceof Map<?, ?> s && s.get("sandbox") instanceof Map<?, ?> sb && sb.get("name") instanceof String n && !n.isBlank()) {
            return Optional.of(n);
        }
        return Optional.empty();
    }

    /** Ready: condition {@code Ready} is {@code "True"} and {@code status.serviceFQDN} is set. */
    static boolean isReady(GenericKubernetesResource sandbox) {
        return readyCondition(sandbox).map(c -> "True".equals(c.get("status"))).orElse(false) && !statusString(sandbox, "serviceFQDN").isBlank();
    }

    private static Optional<Map<?, ?>> readyCondition(GenericKubernetesResource sandbox) {
        if (sandbox != null && sandbox.getAdditionalProperties().get("status") instanceof Map<?, ?> s && s.get("conditions") instanceof List<?> cs) {
            for (Object c : cs) {
                if (c instanceof Map<?, ?> m && "Ready".equals(m.get("type"))) {
                    return Optional.of(m);
                }
            }
        }
        return Optional.empty();
    }

    private static String statusString(GenericKubernetesResource o, String field) {
        if (o != null && o.getAdditionalProperties().get("status") instanceof Map<?, ?> s && s.get(field) instanceof String v) {
            return v;
        }
        return "";
    }

    /** The Sandbox's Ready condition as the controller last wrote it, for a timeout's message. */
    private String readySummary(Resource<GenericKubernetesResource> sandbox) {
        try {
            GenericKubernetesResource s = sandbox.get();
            return readyCondition(s).map(c -> "Ready=" + c.get("status") + " reason " + c.get("reason")).orElse("no Ready condition yet");
        } catch (KubernetesClientException e) {
            return "status unreadable: " + e.getMessage();
        }
    }

    private static void requireTeam(String team) {
        if (!Ids.isTeam(team)) {
            throw new SandboxLifecycleException(SandboxLifecycleException.Reason.INVALID_TEAM, String.valueOf(team), "SandboxClaim (none)",
                    "not a team id (" + Ids.TEAM.pattern() + "): refused before any API call", null);
        }
    }

    private static String sha256Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}

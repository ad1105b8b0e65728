package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The team sandbox (components/agent-sandbox: agent-sandbox's SandboxTemplate, the tool runner's Role, the sandboxes'
 * NetworkPolicy): what the model's commands run beside holds no credential and reaches nothing, and the tool runner's
 * API rights are only the sandbox lifecycle's. Pure functions of a build; vacuous on a build without a SandboxTemplate.
 */
final class TeamSandboxPolicy {

    /** agent-sandbox's API groups: Sandbox, and SandboxTemplate/SandboxClaim/SandboxWarmPool. */
    static final Set<String> GROUPS = Set.of("agents.x-k8s.io", "extensions.agents.x-k8s.io");
    /**
     * The verbs the tool runner needs, per resource (dev.cohort.toolrunner.sandbox.kubernetes.AgentSandboxes): claims
     * are created, read, watched (the ready wait) and deleted (release); Sandboxes are read, watched and patched
     * (spec.operatingMode for pause/resume). No update (a whole-object write could change the pod), no deletecollection.
     */
    static final Map<String, Set<String>> TOOL_RUNNER_VERBS = Map.of(
            "sandboxclaims", Set.of("create", "get", "list", "watch", "delete"),
            "sandboxes", Set.of("get", "list", "watch", "patch"));
    /** The label the tool runner's claim puts on a team's sandbox pod (its value: the team). */
    static final String TEAM_LABEL = "cohort.dev/team";
    /** The tool runner's ServiceAccount: the only subject that drives the sandboxes' lifecycle. */
    static final String TOOL_RUNNER_SA = "tool-runner-service";

    private TeamSandboxPolicy() {
    }

    /** The build's agent-sandbox pod templates (SandboxTemplate, Sandbox). */
    static List<JsonNode> sandboxPods(Manifest m) {
        return m.workloads().stream().filter(Manifest::isAgentSandbox).map(w -> (JsonNode) w).toList();
    }

    /**
     * SANDBOX_POD_HOLDS_NO_CREDENTIAL: no env from a Secret (nor a credential-named env at all), no Secret, projected
     * Secret/token or CSI volume, the pod's automountServiceAccountToken explicitly false, and a claim cannot inject env
     * ({@code envVarsInjectionPolicy} Disallowed, the CRD's default).
     */
    static List<String> holdsNoCredential(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : sandboxPods(m)) {
            String id = Manifest.id(w);
            JsonNode pod = Manifest.podTemplate(w).orElseThrow().path("spec");
            JsonNode automount = pod.path("automountServiceAccountToken");
            if (!automount.isBoolean() || automount.asBoolean()) {
                out.add(id + ": the sandbox pod may mount a service account token (automountServiceAccountToken is not false)");
            }
            for (JsonNode c : Manifest.containers(w)) {
                String cid = id + " container " + c.path("name").asText();
                for (JsonNode e : c.path("env")) {
                    String name = e.path("name").asText();
                    if (e.path("valueFrom").has("secretKeyRef")) {
                        out.add(cid + ": env " + name + " comes from Secret " + e.path("valueFrom").path("secretKeyRef").path("name").asText());
                    } else if (Hardening.SECRET_NAME.matcher(name).matches()) {
                        out.add(cid + ": env " + name + " is named as a credential");
                    }
                }
                for (JsonNode ef : c.path("envFrom")) {
                    if (ef.has("secretRef")) {
                        out.add(cid + ": envFrom Secret " + ef.path("secretRef").path("name").asText());
                    }
                }
            }
            for (JsonNode v : pod.path("volumes")) {
                String vid = id + ": volume " + v.path("name").asText();
                if (v.has("secret")) {
                    out.add(vid + " is Secret " + v.path("secret").path("secretName").asText());
                }
                if (v.has("csi")) {
                    out.add(vid + " is a CSI volume (" + v.path("csi").path("driver").asText() + "), which may carry secrets");
                }
                for (JsonNode src : v.path("projected").path("sources")) {
                    if (src.has("secret") || src.has("serviceAccountToken")) {
                        out.add(vid + " projects " + (src.has("secret") ? "Secret " + src.path("secret").path("name").asText() : "a service account token"));
                    }
                }
            }
            String injection = w.path("spec").path("envVarsInjectionPolicy").asText("Disallowed");
            if ("SandboxTemplate".equals(w.path("kind").asText()) && !injection.equals("Disallowed")) {
                out.add(id + ": envVarsInjectionPolicy " + injection + " lets a claim put env vars (a credential among them) into the sandbox");
            }
        }
        return out;
    }

    /**
     * SANDBOX_RBAC_ONLY_ITS_RESOURCES: the tool runner's ServiceAccount is bound only by RoleBindings (no
     * ClusterRoleBinding, no ClusterRole) in its own namespace, to Roles of the build whose rules name only
     * agent-sandbox's groups, sandboxclaims and sandboxes, with only {@link #TOOL_RUNNER_VERBS}, no wildcard.
     */
    static List<String> rbacOnlyItsResources(Manifest m) {
        List<String> out = new ArrayList<>();
        String ns = NetworkFlows.namespace(m);
        for (JsonNode b : m.objects()) {
            String kind = b.path("kind").asText();
            if (!kind.equals("RoleBinding") && !kind.equals("ClusterRoleBinding")) {
                continue;
            }
            boolean bindsRunner = false;
            for (JsonNode s : b.path("subjects")) {
                if (s.path("kind").asText().equals("ServiceAccount") && s.path("name").asText().equals(TOOL_RUNNER_SA)) {
                    bindsRunner = true;
                    if (!s.path("namespace").asText(ns).equals(ns)) {
                        out.add(Manifest.id(b) + ": binds ServiceAccount " + TOOL_RUNNER_SA + " of namespace " + s.path("namespace").asText()
                                + ", not the build's " + ns);
                    }
                }
            }
            if (!bindsRunner) {
                continue;
            }
            if (kind.equals("ClusterRoleBinding")) {
                out.add(Manifest.id(b) + ": a ClusterRoleBinding gives the tool runner rights in every namespace");
                continue;
            }
            JsonNode ref = b.path("roleRef");
            if (!ref.path("kind").asText().equals("Role")) {
                out.add(Manifest.id(b) + ": binds " + ref.path("kind").asText() + "/" + ref.path("name").asText() + ", not a Role of the namespace");
                continue;
            }
            var role = m.find("Role", ref.path("name").asText());
            if (role.isEmpty()) {
                out.add(Manifest.id(b) + ": Role " + ref.path("name").asText() + " is not in the build");
                continue;
            }
            JsonNode rules = role.get().path("rules");
            for (int i = 0; i < rules.size(); i++) {
                JsonNode r = rules.get(i);
                String where = Manifest.id(role.get()) + " rules[" + i + "]";
                r.path("apiGroups").forEach(g -> {
                    if (!GROUPS.contains(g.asText())) {
                        out.add(where + ": apiGroup \"" + g.asText() + "\" is not agent-sandbox's");
                    }
                });
                if (r.has("nonResourceURLs")) {
                    out.add(where + ": nonResourceURLs " + r.path("nonResourceURLs"));
                }
                for (JsonNode res : r.path("resources")) {
                    Set<String> allowed = TOOL_RUNNER_VERBS.get(res.asText());
                    if (allowed == null) {
                        out.add(where + ": resource \"" + res.asText() + "\" is not sandboxclaims or sandboxes");
                        continue;
                    }
                    r.path("verbs").forEach(v -> {
                        if (!allowed.contains(v.asText())) {
                            out.add(where + ": verb \"" + v.asText() + "\" on " + res.asText() + " is not one of " + allowed.stream().sorted().toList());
                        }
                    });
                }
            }
        }
        return out;
    }

    /**
     * SANDBOX_EGRESS_DENIED: every sandbox pod is isolated for egress by some NetworkPolicy and no policy that selects
     * it has an egress rule (DNS included: the DNS policy must leave the sandboxes out); and its template does not let
     * the agent-sandbox controller add its own policy ({@code networkPolicyManagement: Managed}, the default, adds a
     * shared policy whose default opens the public internet, and policies add up) unless that policy's egress is empty.
     * A team's egress allowlist selects the sandbox pods of one team only (the pod labels plus {@code cohort.dev/team},
     * which the tool runner's claim puts on its team's pod) and allows only {@code ipBlock}s that are not the whole
     * internet, each with ports.
     */
    static List<String> egressDenied(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : sandboxPods(m)) {
            Map<String, String> podLabels = Manifest.podLabels(w);
            for (JsonNode np : m.ofKind("NetworkPolicy")) {
                JsonNode selector = np.path("spec").path("podSelector");
                Map<String, String> sel = Manifest.strings(selector.path("matchLabels"));
                boolean teamScoped = sel.containsKey(TEAM_LABEL) && !sel.get(TEAM_LABEL).isEmpty()
                        && selector.path("matchExpressions").isEmpty();
                Map<String, String> withTeam = new LinkedHashMap<>(podLabels);
                withTeam.put(TEAM_LABEL, sel.getOrDefault(TEAM_LABEL, ""));
                if (!teamScoped || !Manifest.selects(selector, withTeam)) {
                    continue;
                }
                JsonNode egress = np.path("spec").path("egress");
                for (int i = 0; i < egress.size(); i++) {
                    JsonNode rule = egress.get(i);
                    String where = Manifest.id(np) + " egress[" + i + "] (team " + sel.get(TEAM_LABEL) + "'s allowlist)";
                    if (rule.path("ports").isEmpty()) {
                        out.add(where + ": opens every port");
                    }
                    if (rule.path("to").isEmpty()) {
                        out.add(where + ": opens every destination");
                    }
                    for (JsonNode peer : rule.path("to")) {
                        if (!peer.has("ipBlock")) {
                            out.add(where + ": peer " + peer + " is not an ipBlock (a team's allowlist names addresses)");
                        } else if (Cidr.isEverything(peer.path("ipBlock").path("cidr").asText())) {
                            out.add(where + ": ipBlock " + peer.path("ipBlock").path("cidr").asText() + " is the whole internet");
                        }
                    }
                }
            }
        }
        for (JsonNode w : sandboxPods(m)) {
            String id = Manifest.id(w);
            Map<String, String> labels = Manifest.podLabels(w);
            boolean isolated = false;
            for (JsonNode np : m.ofKind("NetworkPolicy")) {
                JsonNode spec = np.path("spec");
                if (!Manifest.selects(spec.path("podSelector"), labels)) {
                    continue;
                }
                List<String> types = new ArrayList<>();
                spec.path("policyTypes").forEach(t -> types.add(t.asText()));
                if (types.contains("Egress") || (types.isEmpty() && spec.has("egress"))) {
                    isolated = true;
                    if (!spec.path("egress").isEmpty()) {
                        out.add(id + ": " + Manifest.id(np) + " selects the sandbox pods " + labels + " and allows egress " + spec.path("egress"));
                    }
                }
            }
            if (!isolated) {
                out.add(id + ": no NetworkPolicy isolates the sandbox pods " + labels + " for egress: they may reach anything");
            }
            if ("SandboxTemplate".equals(w.path("kind").asText())) {
                JsonNode spec = w.path("spec");
                String management = spec.path("networkPolicyManagement").asText("Managed");
                if (management.equals("Managed") && (!spec.has("networkPolicy") || !spec.path("networkPolicy").path("egress").isEmpty())) {
                    out.add(id + ": networkPolicyManagement Managed " + (spec.has("networkPolicy") ? "with egress rules "
                            + spec.path("networkPolicy").path("egress") : "without networkPolicy (the controller's default allows the public internet)")
                            + ": the controller's policy would add egress to ours");
                }
            }
        }
        return out;
    }
}

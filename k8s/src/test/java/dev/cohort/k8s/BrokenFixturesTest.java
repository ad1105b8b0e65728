package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every check can fail: each {@code broken/<case>/} is the (valid) fixture with one defect patched in, and the check
 * it is listed under reports it, naming the defect.
 */
class BrokenFixturesTest {

    /** A broken case: the check that must catch it and a part of the message it must give. */
    record Expect(Checks check, String message) {
    }

    static final Map<String, Expect> CASES = Map.ofEntries(
            Map.entry("unknown-field-securitycontext-typo", new Expect(Checks.BUILTIN_UNKNOWN_FIELDS_AND_TYPES, "unknown field \"spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem\"")),
            Map.entry("unknown-field-networkpolicy-egres", new Expect(Checks.BUILTIN_UNKNOWN_FIELDS_AND_TYPES, "unknown field \"spec.egres\"")),
            Map.entry("wrong-type-replicas", new Expect(Checks.BUILTIN_UNKNOWN_FIELDS_AND_TYPES, "spec.replicas")),
            Map.entry("required-selector-does-not-match-template", new Expect(Checks.BUILTIN_REQUIRED_FIELDS, "`selector` does not match template `labels`")),
            Map.entry("required-request-above-limit", new Expect(Checks.BUILTIN_REQUIRED_FIELDS, "resources.requests[memory]: Invalid value: must be less than or equal to the memory limit")),
            Map.entry("required-mount-of-missing-volume", new Expect(Checks.BUILTIN_REQUIRED_FIELDS, "volumeMounts.name: Not found: \"cache\"")),
            Map.entry("required-recreate-with-rolling-update", new Expect(Checks.BUILTIN_REQUIRED_FIELDS, "spec.strategy.rollingUpdate: Forbidden")),
            Map.entry("crd-unknown-field", new Expect(Checks.CRD_SCHEMA, "partition")),
            Map.entry("crd-wrong-type", new Expect(Checks.CRD_SCHEMA, "/spec/partitions")),
            Map.entry("crd-unserved-version", new Expect(Checks.CRD_SCHEMA, "KafkaTopic/cohort.teammate.inbox")),
            Map.entry("crd-missing-required-field", new Expect(Checks.CRD_SCHEMA, "scaleTargetRef")),
            Map.entry("crd-below-minimum", new Expect(Checks.CRD_SCHEMA, "/spec/instances")),
            Map.entry("cel-keda-min-above-max", new Expect(Checks.CRD_CEL_RULES, "minReplicaCount must be less than or equal to maxReplicaCount")),
            Map.entry("cel-cnpg-image-name-and-catalog", new Expect(Checks.CRD_CEL_RULES, "imageName and imageCatalogRef are mutually exclusive")),
            Map.entry("run-as-root", new Expect(Checks.RUN_AS_NON_ROOT, "Deployment/teammate-service container teammate-service: runAsNonRoot is not true")),
            Map.entry("writable-root-filesystem", new Expect(Checks.READ_ONLY_ROOT_FILESYSTEM, "readOnlyRootFilesystem is not true")),
            Map.entry("no-tmp-emptydir", new Expect(Checks.READ_ONLY_ROOT_FILESYSTEM, "no emptyDir volume mounted at /tmp")),
            Map.entry("capabilities-not-dropped", new Expect(Checks.DROP_ALL_CAPABILITIES, "capabilities.drop does not contain ALL")),
            Map.entry("privilege-escalation", new Expect(Checks.NO_PRIVILEGE_ESCALATION, "allowPrivilegeEscalation is not false")),
            Map.entry("seccomp-unconfined", new Expect(Checks.SECCOMP_RUNTIME_DEFAULT, "seccompProfile.type is \"Unconfined\"")),
            Map.entry("service-account-token-mounted", new Expect(Checks.NO_SERVICE_ACCOUNT_TOKEN, "Deployment/teammate-service: the pod mounts a service account token")),
            Map.entry("no-default-deny", new Expect(Checks.DEFAULT_DENY_NETWORK_POLICY, "no default-deny NetworkPolicy")),
            Map.entry("workload-without-allow-policy", new Expect(Checks.EVERY_WORKLOAD_HAS_AN_ALLOW_POLICY, "Deployment/teammate-service: no NetworkPolicy")),
            Map.entry("tool-runner-no-orphan-reaper", new Expect(Checks.TOOL_RUNNER_REAPS_ORPHANS, "Deployment/tool-runner-service: shareProcessNamespace is not true")),
            Map.entry("tool-runner-egress-open", new Expect(Checks.TOOL_RUNNER_EGRESS, "0.0.0.0/0 is the whole internet")),
            Map.entry("flow-teammate-to-tool-runner-not-allowed-in", new Expect(Checks.CONFIGURED_FLOWS_ARE_ALLOWED, "Deployment/teammate-service → Deployment/tool-runner-service :8083 (COHORT_TOOL_RUNNER_URL=http://tool-runner-service:8083): not allowed into the server")),
            Map.entry("flow-teammate-to-tool-runner-not-allowed-out", new Expect(Checks.CONFIGURED_FLOWS_ARE_ALLOWED, "Deployment/teammate-service → Deployment/tool-runner-service :8083 (COHORT_TOOL_RUNNER_URL=http://tool-runner-service:8083): not allowed out of the client")),
            Map.entry("flow-no-dns", new Expect(Checks.CONFIGURED_FLOWS_ARE_ALLOWED, "Deployment/teammate-service: DNS (kube-dns in kube-system, UDP 53) is not allowed out")),
            Map.entry("secret-env-not-from-secret", new Expect(Checks.SECRETS_ONLY_VIA_SECRET_KEY_REF, "env COHORT_TOOL_RUNNER_TOKEN is a credential but does not come from valueFrom.secretKeyRef")),
            Map.entry("secret-committed", new Expect(Checks.SECRETS_ONLY_VIA_SECRET_KEY_REF, "Secret/cohort-secrets: a Secret with values is committed")),
            Map.entry("literal-secret-in-configmap", new Expect(Checks.NO_LITERAL_SECRET_VALUES, "ConfigMap/teammate-service: data OPENAI_BASE_URL")),
            Map.entry("latest-image", new Expect(Checks.PINNED_IMAGES, "ghcr.io/cohort/teammate-service:latest\" is not pinned")),
            Map.entry("untagged-image", new Expect(Checks.PINNED_IMAGES, "registry.local:5000/cohort/tool-runner-service\" is not pinned")),
            Map.entry("wrong-probe-path", new Expect(Checks.HEALTH_PROBES, "livenessProbe is not an httpGet on /q/health/live")),
            Map.entry("operator-pod-without-limits", new Expect(Checks.REQUESTS_AND_LIMITS, "Kafka/cohort-kafka: spec.entityOperator.topicOperator.resources.requests.cpu is not set")),
            Map.entry("cnpg-image-latest", new Expect(Checks.PINNED_IMAGES, "Cluster/cohort-db: spec.imageName \"ghcr.io/cloudnative-pg/postgresql:latest\" is not pinned")),
            Map.entry("missing-limits", new Expect(Checks.REQUESTS_AND_LIMITS, "resources.limits.memory is not set")),
            Map.entry("scaledobject-target-missing", new Expect(Checks.SCALED_OBJECT_TARGETS_A_WORKLOAD, "scaleTargetRef Deployment/teammates is not in the build")),
            Map.entry("scaledobject-topic-missing", new Expect(Checks.SCALED_OBJECT_TOPIC_FITS_ITS_REPLICAS, "trigger topic \"cohort.teammates.inbox\" is not a KafkaTopic")),
            Map.entry("scaledobject-max-above-partitions", new Expect(Checks.SCALED_OBJECT_TOPIC_FITS_ITS_REPLICAS, "maxReplicaCount 24 > 12 partitions")),
            Map.entry("consumer-group-wrong", new Expect(Checks.CONSUMER_GROUP_MATCHES_THE_SERVICE, "consumerGroup \"cohort-teammate-service\" is not teammate-service's group \"cohort-teammate\"")),
            Map.entry("strimzi-cluster-label-wrong", new Expect(Checks.STRIMZI_CLUSTER_LABELS, "strimzi.io/cluster=\"kafka\" names no Kafka")),
            Map.entry("pvc-rwo-with-two-replicas", new Expect(Checks.PVC_ACCESS_MODE_FITS_REPLICAS, "up to 2 pods share PersistentVolumeClaim/tool-runner-workspaces")),
            Map.entry("secret-ref-unknown-secret", new Expect(Checks.SECRET_REFS_RESOLVE, "Secret openai is neither created")),
            Map.entry("secret-ref-unknown-key", new Expect(Checks.SECRET_REFS_RESOLVE, "Secret cohort-db-app has no key \"jdbcUrl\"")),
            Map.entry("service-selects-nothing", new Expect(Checks.SERVICES_SELECT_PODS, "Service/tool-runner-service: selector")),
            Map.entry("probe-port-not-the-service-port", new Expect(Checks.PORTS_MATCH_THE_SERVICE, "the service listens on 8081")),
            Map.entry("prometheus-port-wrong", new Expect(Checks.PORTS_MATCH_THE_SERVICE, "annotation prometheus.io/port 9090 is not the port the service serves /q/metrics on (9000, its management port)")),
            Map.entry("probe-on-the-http-port", new Expect(Checks.HEALTH_AND_METRICS_ON_THE_MANAGEMENT_PORT, "Deployment/teammate-service container teammate-service: readinessProbe is on port \"http\", not the port named \"management\"")),
            Map.entry("podmonitor-on-the-http-port", new Expect(Checks.HEALTH_AND_METRICS_ON_THE_MANAGEMENT_PORT, "PodMonitor/teammate-service: scrapes Deployment/teammate-service on port \"http\", not the port named \"management\"")),
            Map.entry("service-exposes-management-port", new Expect(Checks.MANAGEMENT_PORT_NOT_IN_A_SERVICE, "Service/teammate-service: port management (targetPort \"management\") exposes the management port of Deployment/teammate-service")),
            Map.entry("management-port-open-to-the-namespace", new Expect(Checks.MANAGEMENT_PORT_ONLY_FROM_MONITORING, "NetworkPolicy/teammate-service: admits {\"podSelector\":{\"matchLabels\":{\"app.kubernetes.io/name\":\"lead-service\"}}} on the management port 9000 of Deployment/teammate-service")),
            Map.entry("metrics-scrape-on-the-http-port", new Expect(Checks.MANAGEMENT_PORT_ONLY_FROM_MONITORING, "NetworkPolicy/metrics-scrape: admits monitoring on port 8081 of Deployment/teammate-service, which is not the management port")),
            Map.entry("prometheus-cannot-reach-management-port", new Expect(Checks.MANAGEMENT_PORT_ONLY_FROM_MONITORING, "Deployment/teammate-service: Prometheus")),
            Map.entry("third-party-image-by-tag", new Expect(Checks.THIRD_PARTY_IMAGES_PINNED_BY_DIGEST, "Cluster/cohort-db: spec.imageName \"ghcr.io/cloudnative-pg/postgresql:17.11-202608170816-system-bookworm\" is not pinned by digest")),
            Map.entry("sidecar-image-by-tag", new Expect(Checks.THIRD_PARTY_IMAGES_PINNED_BY_DIGEST, "Deployment/tool-runner-service container log-shipper: third-party image \"docker.io/fluent/fluent-bit:3.2.4\" is not pinned by digest")),
            Map.entry("scaled-deployment-sets-replicas", new Expect(Checks.SCALED_WORKLOADS_LEAVE_REPLICAS_TO_THE_AUTOSCALER, "Deployment/teammate-service: sets spec.replicas 3")),
            Map.entry("pdb-blocks-eviction", new Expect(Checks.DISRUPTION_BUDGETS_ALLOW_EVICTION, "PodDisruptionBudget/teammate-service: with 1 pod(s) of Deployment/teammate-service it allows no eviction")),
            Map.entry("jvm-heap-fills-the-limit", new Expect(Checks.JVM_FITS_ITS_MEMORY_LIMIT, "Deployment/teammate-service container teammate-service: the JVM may use 969 MiB (heap 768 + 201 beyond the heap) but its memory limit 768Mi is 768 MiB")),
            Map.entry("jvm-two-collectors", new Expect(Checks.JVM_SELECTS_ONE_COLLECTOR, "Deployment/teammate-service container teammate-service: run-java.sh would start java with 2 collectors [-XX:+UseParallelGC, -XX:+UseSerialGC]")),
            Map.entry("jvm-without-the-aot-cache", new Expect(Checks.JVM_USES_THE_IMAGE_AOT_CACHE, "Deployment/teammate-service container teammate-service: does not use its image's AOT cache: no -XX:AOTCache=/deployments/app.aot")),
            Map.entry("jvm-aot-cache-refused", new Expect(Checks.JVM_USES_THE_IMAGE_AOT_CACHE, "Deployment/teammate-service container teammate-service: the JVM would refuse its image's AOT cache: UseCompactObjectHeaders is false at start but was true when the cache was trained")),
            Map.entry("apiserver-placeholder", new Expect(Checks.OPERANDS_REACH_THE_API_SERVER, "Cluster/cohort-db (CloudNativePG instance manager): its pods cannot reach the Kubernetes API server (TCP [443, 6443] to an ipBlock); [NetworkPolicy/operands-to-apiserver 192.0.2.1/32] is a documentation address")),
            Map.entry("postgres-peers-without-instance-manager", new Expect(Checks.POSTGRES_INSTANCES_REACH_EACH_OTHER, "Cluster/cohort-db: instance → instance :8000 is not allowed into the instances")),
            Map.entry("scaler-metric-not-scraped", new Expect(Checks.SCALER_METRICS_ARE_SCRAPED, "ScaledObject/teammate-service prometheus trigger: ignoreNullValues is not \"false\"")),
            Map.entry("kafka-nodes-not-spread", new Expect(Checks.KAFKA_NODES_SPREAD, "KafkaNodePool/dual-role: 3 nodes with no topology spread")),
            Map.entry("flyway-no-connect-retries", new Expect(Checks.DATABASE_RETRIES_WITHIN_STARTUP_PROBE, "Deployment/teammate-service container teammate-service: Flyway waits 0 s for the database")),
            Map.entry("no-prestop-drain", new Expect(Checks.PRE_STOP_DRAIN_DELAY, "Deployment/teammate-service container teammate-service: no preStop delay")),
            Map.entry("fsgroup-change-policy-missing", new Expect(Checks.FS_GROUP_CHANGE_ON_ROOT_MISMATCH, "Deployment/tool-runner-service: fsGroup without fsGroupChangePolicy: OnRootMismatch")),
            Map.entry("secret-not-used-by-the-service", new Expect(Checks.SECRETS_ARE_USED_BY_THE_SERVICE, "Deployment/teammate-service: COHORT_API_TOKEN (Secret cohort-secrets key api-token) feeds [cohort.api.token], which nothing in teammate-service uses")),
            Map.entry("image-without-registry", new Expect(Checks.COHORT_IMAGES_NAME_THEIR_REGISTRY, "image \"cohort/teammate-service:0.1.0\" names no registry: it resolves to docker.io/cohort/teammate-service")),
            Map.entry("single-postgres-with-pdb", new Expect(Checks.OPERATOR_BUDGETS_ALLOW_EVICTION, "Cluster/cohort-db: one instance with CloudNativePG's PodDisruptionBudget")),
            Map.entry("connections-exceed-postgres", new Expect(Checks.CONNECTIONS_FIT_POSTGRES, "Cluster/cohort-db: the services may open 256 connections (teammate-service 8 × 32) but max_connections 100")),
            Map.entry("postgres-memory-exceeds-limit", new Expect(Checks.POSTGRES_MEMORY_FITS_ITS_CONNECTIONS, "Cluster/cohort-db: PostgreSQL may use 4520 MiB (shared_buffers 128 MiB + max_connections 300 × (work_mem 4 MiB + 10 MiB per backend) + 3 autovacuum workers × 64 MiB) but 80 % of its memory limit 2Gi is 1638 MiB")),
            Map.entry("postgres-memory-parameters-unset", new Expect(Checks.POSTGRES_MEMORY_FITS_ITS_CONNECTIONS, "Cluster/cohort-db: PostgreSQL's memory cannot be budgeted: it sets no shared_buffers")),
            Map.entry("postgres-memory-request-below-limit", new Expect(Checks.MEMORY_REQUESTS_EQUAL_LIMITS, "Cluster/cohort-db: PostgreSQL's memory request 1Gi < limit 6Gi")),
            Map.entry("memory-request-below-limit", new Expect(Checks.MEMORY_REQUESTS_EQUAL_LIMITS, "Deployment/teammate-service container teammate-service: memory request 384Mi < limit 768Mi")),
            Map.entry("env-var-nobody-reads", new Expect(Checks.ENV_VARS_ARE_READ_BY_THE_SERVICE, "COHORT_DB_URI (env) is read by nothing in teammate-service")),
            Map.entry("kafka-client-not-admitted", new Expect(Checks.KAFKA_CLIENTS_REACH_A_LISTENER, "Deployment/teammate-service: its pods")),
            Map.entry("instance-id-shared", new Expect(Checks.INSTANCE_IDS_ARE_UNIQUE_PER_POD, "up to 6 pods share COHORT_INSTANCE_ID=\"teammate\"")),
            Map.entry("rwo-with-rolling-update", new Expect(Checks.PVC_ACCESS_MODE_FITS_REPLICAS, "use strategy Recreate")),
            Map.entry("crd-sandbox-unknown-field", new Expect(Checks.CRD_SCHEMA, "SandboxWarmPool/team-sandbox: /spec: property 'size' is not defined in the schema")),
            Map.entry("sandbox-writable-root-filesystem", new Expect(Checks.READ_ONLY_ROOT_FILESYSTEM, "SandboxTemplate/team-sandbox container sandbox: securityContext.readOnlyRootFilesystem is not true")),
            Map.entry("sandbox-secret-env", new Expect(Checks.SANDBOX_POD_HOLDS_NO_CREDENTIAL, "SandboxTemplate/team-sandbox container sandbox: env COHORT_TOOL_RUNNER_TOKEN comes from Secret cohort-secrets")),
            Map.entry("sandbox-secret-volume", new Expect(Checks.SANDBOX_POD_HOLDS_NO_CREDENTIAL, "SandboxTemplate/team-sandbox: volume credentials is Secret cohort-secrets")),
            Map.entry("sandbox-token-mounted", new Expect(Checks.SANDBOX_POD_HOLDS_NO_CREDENTIAL, "SandboxTemplate/team-sandbox: the sandbox pod may mount a service account token")),
            Map.entry("sandbox-rbac-secrets", new Expect(Checks.SANDBOX_RBAC_ONLY_ITS_RESOURCES, "Role/tool-runner-sandboxes rules[2]: resource \"secrets\" is not sandboxclaims or sandboxes")),
            Map.entry("sandbox-rbac-wildcard-verb", new Expect(Checks.SANDBOX_RBAC_ONLY_ITS_RESOURCES, "Role/tool-runner-sandboxes rules[1]: verb \"*\" on sandboxes is not one of [get, list, patch, watch]")),
            Map.entry("sandbox-rbac-cluster-role-binding", new Expect(Checks.SANDBOX_RBAC_ONLY_ITS_RESOURCES, "ClusterRoleBinding/tool-runner-sandboxes-everywhere: a ClusterRoleBinding gives the tool runner rights in every namespace")),
            Map.entry("sandbox-dns-egress", new Expect(Checks.SANDBOX_EGRESS_DENIED, "SandboxTemplate/team-sandbox: NetworkPolicy/allow-dns selects the sandbox pods")),
            Map.entry("sandbox-network-policy-managed", new Expect(Checks.SANDBOX_EGRESS_DENIED, "SandboxTemplate/team-sandbox: networkPolicyManagement Managed without networkPolicy")),
            Map.entry("sandbox-team-allowlist-open", new Expect(Checks.SANDBOX_EGRESS_DENIED, "NetworkPolicy/team-sandbox-egress-acme egress[0] (team acme's allowlist): ipBlock 0.0.0.0/0 is the whole internet")));

    static Stream<Arguments> cases() {
        return CASES.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void eachBrokenFixtureIsCaughtByItsCheckWithAMessageNamingTheDefect(String name, Expect expect) {
        Manifest broken = Manifest.of(Manifest.testResources().resolve("broken").resolve(name));
        assertThat(expect.check().violations(broken)).as("%s on broken/%s", expect.check(), name)
                .anySatisfy(v -> assertThat(v).contains(expect.message()));
        // the same check is silent on the fixture the case was made from, so the defect is what it caught
        assertThat(expect.check().violations(Manifest.of(Manifest.testResources().resolve("fixture")))).isEmpty();
    }

    @Test
    void everyCheckHasABrokenFixtureAndEveryFixtureIsListed() throws IOException {
        Set<Checks> proven = CASES.values().stream().map(Expect::check).collect(Collectors.toCollection(() -> EnumSet.noneOf(Checks.class)));
        assertThat(EnumSet.complementOf(EnumSet.copyOf(proven))).as("checks no broken fixture proves able to fail").isEmpty();
        try (Stream<Path> dirs = Files.list(Manifest.testResources().resolve("broken"))) {
            assertThat(dirs.map(p -> p.getFileName().toString()).filter(n -> !n.equals("kustomize-missing-resource") && !n.startsWith("overlay-")))
                    .containsExactlyInAnyOrderElementsOf(CASES.keySet());
        }
    }
}

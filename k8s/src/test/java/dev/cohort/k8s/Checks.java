package dev.cohort.k8s;

import java.util.List;
import java.util.function.Function;

/** Every offline check of a kustomize build, by name; each is a pure function from a build to its violations. */
enum Checks {
    BUILTIN_UNKNOWN_FIELDS_AND_TYPES(BuiltinKinds::unknownFieldsAndTypes),
    BUILTIN_REQUIRED_FIELDS(BuiltinKinds::requiredFields),
    CRD_SCHEMA(CrdSchemas::schemaViolations),
    CRD_CEL_RULES(CrdSchemas::celViolations),
    RUN_AS_NON_ROOT(Hardening::runAsNonRoot),
    READ_ONLY_ROOT_FILESYSTEM(Hardening::readOnlyRootFilesystem),
    DROP_ALL_CAPABILITIES(Hardening::dropAllCapabilities),
    NO_PRIVILEGE_ESCALATION(Hardening::noPrivilegeEscalation),
    SECCOMP_RUNTIME_DEFAULT(Hardening::seccompRuntimeDefault),
    NO_SERVICE_ACCOUNT_TOKEN(Hardening::noServiceAccountToken),
    DEFAULT_DENY_NETWORK_POLICY(Hardening::defaultDenyNetworkPolicy),
    EVERY_WORKLOAD_HAS_AN_ALLOW_POLICY(Hardening::everyWorkloadHasAnAllowPolicy),
    TOOL_RUNNER_EGRESS(Hardening::toolRunnerEgress),
    TOOL_RUNNER_REAPS_ORPHANS(Hardening::toolRunnerReapsOrphans),
    CONFIGURED_FLOWS_ARE_ALLOWED(NetworkFlows::configuredFlowsAreAllowed),
    OPERANDS_REACH_THE_API_SERVER(OperatorFlows::operandsReachTheApiServer),
    POSTGRES_INSTANCES_REACH_EACH_OTHER(OperatorFlows::postgresInstancesReachEachOther),
    SECRETS_ONLY_VIA_SECRET_KEY_REF(Hardening::secretsOnlyViaSecretKeyRef),
    SECRETS_ARE_USED_BY_THE_SERVICE(SecretUse::secretsAreUsedByTheService),
    NO_LITERAL_SECRET_VALUES(Hardening::noLiteralSecretValues),
    PINNED_IMAGES(Hardening::pinnedImages),
    COHORT_IMAGES_NAME_THEIR_REGISTRY(LeastExposure::cohortImagesNameTheirRegistry),
    THIRD_PARTY_IMAGES_PINNED_BY_DIGEST(LeastExposure::thirdPartyImagesPinnedByDigest),
    HEALTH_AND_METRICS_ON_THE_MANAGEMENT_PORT(LeastExposure::healthAndMetricsOnTheManagementPort),
    MANAGEMENT_PORT_NOT_IN_A_SERVICE(LeastExposure::managementPortNotInAService),
    MANAGEMENT_PORT_ONLY_FROM_MONITORING(LeastExposure::managementPortOnlyFromMonitoring),
    HEALTH_PROBES(Hardening::healthProbes),
    REQUESTS_AND_LIMITS(Hardening::requestsAndLimits),
    SCALED_OBJECT_TARGETS_A_WORKLOAD(CrossReferences::scaledObjectTargetsAWorkload),
    SCALED_OBJECT_TOPIC_FITS_ITS_REPLICAS(CrossReferences::scaledObjectTopicFitsItsReplicas),
    CONSUMER_GROUP_MATCHES_THE_SERVICE(CrossReferences::consumerGroupMatchesTheService),
    STRIMZI_CLUSTER_LABELS(CrossReferences::strimziClusterLabels),
    PVC_ACCESS_MODE_FITS_REPLICAS(CrossReferences::pvcAccessModeFitsReplicas),
    SECRET_REFS_RESOLVE(CrossReferences::secretRefsResolve),
    SERVICES_SELECT_PODS(CrossReferences::servicesSelectPods),
    PORTS_MATCH_THE_SERVICE(CrossReferences::portsMatchTheService),
    SCALED_WORKLOADS_LEAVE_REPLICAS_TO_THE_AUTOSCALER(CrossReferences::scaledWorkloadsLeaveReplicasToTheAutoscaler),
    INSTANCE_IDS_ARE_UNIQUE_PER_POD(CrossReferences::instanceIdsAreUniquePerPod),
    DISRUPTION_BUDGETS_ALLOW_EVICTION(CrossReferences::disruptionBudgetsAllowEviction),
    OPERATOR_BUDGETS_ALLOW_EVICTION(LeastExposure::operatorBudgetsAllowEviction),
    CONNECTIONS_FIT_POSTGRES(Capacity::connectionsFitPostgres),
    POSTGRES_MEMORY_FITS_ITS_CONNECTIONS(Capacity::postgresMemoryFitsItsConnections),
    MEMORY_REQUESTS_EQUAL_LIMITS(Capacity::memoryRequestsEqualLimits),
    JVM_FITS_ITS_MEMORY_LIMIT(Capacity::jvmFitsItsMemoryLimit),
    ENV_VARS_ARE_READ_BY_THE_SERVICE(ServiceConfig::envVarsAreReadByTheService),
    JVM_SELECTS_ONE_COLLECTOR(RunJava::oneCollector),
    JVM_USES_THE_IMAGE_AOT_CACHE(RunJava::usesTheImageAotCache),
    SCALER_METRICS_ARE_SCRAPED(RoutineEvents::scalerMetricsAreScraped),
    KAFKA_NODES_SPREAD(RoutineEvents::kafkaNodesSpread),
    DATABASE_RETRIES_WITHIN_STARTUP_PROBE(RoutineEvents::databaseRetriesWithinStartupProbe),
    PRE_STOP_DRAIN_DELAY(RoutineEvents::preStopDrainDelay),
    FS_GROUP_CHANGE_ON_ROOT_MISMATCH(RoutineEvents::fsGroupChangeOnRootMismatch),
    KAFKA_CLIENTS_REACH_A_LISTENER(ServiceConfig::kafkaClientsReachAListener),
    SANDBOX_POD_HOLDS_NO_CREDENTIAL(TeamSandboxPolicy::holdsNoCredential),
    SANDBOX_RBAC_ONLY_ITS_RESOURCES(TeamSandboxPolicy::rbacOnlyItsResources),
    SANDBOX_EGRESS_DENIED(TeamSandboxPolicy::egressDenied);

    private final Function<Manifest, List<String>> check;

    Checks(Function<Manifest, List<String>> check) {
        this.check = check;
    }

    /** The violations of this check in a build. */
    List<String> violations(Manifest m) {
        return check.apply(m);
    }
}

package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * KEDA's Apache Kafka scaler (v2.20, {@code pkg/scalers/kafka_scaler.go}) as a pure function: the replica count a
 * ScaledObject implies for given per-partition offsets.
 *
 * <ul>
 *   <li>lag of a partition = latest offset − the group's committed offset; with no committed offset it is 1 under
 *       {@code offsetResetPolicy: latest} (0 with {@code scaleToZeroOnInvalidOffset}) and the latest offset under
 *       {@code earliest} (0 with {@code scaleToZeroOnInvalidOffset});</li>
 *   <li>unless {@code allowIdleConsumers: true}, totalLag is capped at partitions × lagThreshold (never more consumers
 *       than partitions);</li>
 *   <li>active when totalLag &gt; activationLagThreshold; the HPA's AverageValue target gives
 *       ceil(totalLag / lagThreshold), clamped to [minReplicaCount, maxReplicaCount]; inactive → minReplicaCount.</li>
 * </ul>
 * The HPA's 10 % tolerance and stabilisation windows act on top of this (they delay or damp, never change the target).
 *
 * @param lagThreshold target lag per replica
 * @param activationLagThreshold lag at or below which the trigger is inactive
 * @param minReplicas minReplicaCount (KEDA default 0)
 * @param maxReplicas maxReplicaCount (KEDA default 100)
 * @param offsetResetPolicy latest or earliest (KEDA default latest)
 * @param allowIdleConsumers KEDA default false
 * @param scaleToZeroOnInvalidOffset KEDA default false
 */
record KedaKafkaScaler(long lagThreshold, long activationLagThreshold, int minReplicas, int maxReplicas, String offsetResetPolicy,
        boolean allowIdleConsumers, boolean scaleToZeroOnInvalidOffset) {

    /** The scaler of a ScaledObject's kafka trigger, with KEDA's defaults for what it leaves out. */
    static KedaKafkaScaler of(JsonNode scaledObject, JsonNode triggerMetadata) {
        return new KedaKafkaScaler(
                Long.parseLong(triggerMetadata.path("lagThreshold").asText("10")),
                Long.parseLong(triggerMetadata.path("activationLagThreshold").asText("0")),
                scaledObject.path("spec").path("minReplicaCount").asInt(0),
                scaledObject.path("spec").path("maxReplicaCount").asInt(CrossReferences.KEDA_DEFAULT_MAX_REPLICAS),
                triggerMetadata.path("offsetResetPolicy").asText("latest"),
                Boolean.parseBoolean(triggerMetadata.path("allowIdleConsumers").asText("false")),
                Boolean.parseBoolean(triggerMetadata.path("scaleToZeroOnInvalidOffset").asText("false")));
    }

    /** The lag KEDA counts for one partition; {@code committed} is null when the group has no offset there. */
    long partitionLag(long latest, Long committed) {
        if (committed == null) {
            if (scaleToZeroOnInvalidOffset) {
                return 0;
            }
            return offsetResetPolicy.equals("latest") ? 1 : latest;
        }
        return latest - committed;
    }

    /** totalLag over partitions, with the idle-consumer cap. */
    long totalLag(Map<Integer, Long> latest, Map<Integer, Long> committed) {
        long total = 0;
        for (var e : latest.entrySet()) {
            total += partitionLag(e.getValue(), committed.get(e.getKey()));
        }
        if (!allowIdleConsumers && total / lagThreshold > latest.size()) {
            total = latest.size() * lagThreshold;
        }
        return total;
    }

    /** The replica count KEDA and the HPA converge on for this lag. */
    int desiredReplicas(long totalLag) {
        if (totalLag <= activationLagThreshold) {
            return minReplicas;
        }
        long wanted = (totalLag + lagThreshold - 1) / lagThreshold;
        return (int) Math.max(Math.max(minReplicas, 1), Math.min(maxReplicas, wanted));
    }
}

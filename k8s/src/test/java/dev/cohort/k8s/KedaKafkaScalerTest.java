package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** KEDA's Kafka scaler formula, case by case (the lag test on the broker checks it against real offsets). */
class KedaKafkaScalerTest {

    static final KedaKafkaScaler SCALER = new KedaKafkaScaler(20, 1, 1, 6, "earliest", false, false);

    @Test
    void replicasAreTheLagDividedByTheThresholdRoundedUpAndClamped() {
        assertThat(SCALER.desiredReplicas(0)).isEqualTo(1);
        assertThat(SCALER.desiredReplicas(1)).as("not above the activation threshold").isEqualTo(1);
        assertThat(SCALER.desiredReplicas(41)).isEqualTo(3);
        assertThat(SCALER.desiredReplicas(60)).isEqualTo(3);
        assertThat(SCALER.desiredReplicas(10_000)).isEqualTo(6);
    }

    @Test
    void lagIsCappedAtPartitionsTimesThresholdUnlessIdleConsumersAreAllowed() {
        Map<Integer, Long> latest = Map.of(0, 500L, 1, 500L);
        Map<Integer, Long> committed = Map.of(0, 0L, 1, 0L);
        assertThat(SCALER.totalLag(latest, committed)).isEqualTo(40);
        assertThat(new KedaKafkaScaler(20, 1, 1, 6, "earliest", true, false).totalLag(latest, committed)).isEqualTo(1000);
    }

    @Test
    void aPartitionWithoutACommittedOffsetCountsOneUnderLatestAndEverythingUnderEarliest() {
        assertThat(new KedaKafkaScaler(20, 0, 0, 6, "latest", false, false).partitionLag(70, null)).isEqualTo(1);
        assertThat(SCALER.partitionLag(70, null)).isEqualTo(70);
        assertThat(new KedaKafkaScaler(20, 0, 0, 6, "earliest", false, true).partitionLag(70, null)).isZero();
        assertThat(SCALER.partitionLag(70, 65L)).isEqualTo(5);
    }

    @Test
    void withMinimumZeroAnInactiveTriggerScalesToZeroAndAnActiveOneToAtLeastOne() {
        KedaKafkaScaler s = new KedaKafkaScaler(20, 5, 0, 6, "latest", false, false);
        assertThat(s.desiredReplicas(5)).isZero();
        assertThat(s.desiredReplicas(6)).isEqualTo(1);
    }
}

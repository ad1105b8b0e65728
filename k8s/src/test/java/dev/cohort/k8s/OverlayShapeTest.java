package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The dev and prod overlays have the shape README.md describes; broken/overlay-* prove each rule can fail. */
class OverlayShapeTest {

    @Test
    void theDevOverlayRunsOneOfEverything() {
        assertThat(OverlayShape.dev(Manifest.of(Manifest.k8sDir().resolve("overlays/dev")))).isEmpty();
    }

    @Test
    void theProdOverlayRunsThreeLeadsKedaScaledTeammatesThreeBrokersAndThreePostgresInstances() {
        assertThat(OverlayShape.prod(Manifest.of(Manifest.k8sDir().resolve("overlays/prod")))).isEmpty();
    }

    @Test
    void theBaseHardCodesNoNamespace() {
        assertThat(OverlayShape.namespaced(Manifest.of(Manifest.k8sDir().resolve("base")))).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            overlay-prod-two-leads           | prod | Deployment/lead-service: prod runs 3 replicas, not 2
            overlay-prod-short-stabilisation | prod | scaleDown.stabilizationWindowSeconds 60 < 300
            overlay-prod-lag-only            | prod | no second trigger on running teammates
            overlay-prod-one-postgres        | prod | Cluster/cohort-db: prod runs 3 PostgreSQL instances, not 1
            overlay-prod-no-backup           | prod | Cluster/cohort-db: prod has no backup object store
            overlay-prod-partitions-differ   | prod | KafkaTopic cohort.teammate.inbox has 12 partitions but teammate-service is configured with cohort.teammate.partitions=16
            overlay-prod-query-namespace     | prod | query counts namespace "cohort-dev" but the overlay deploys to "cohort"
            overlay-dev-two-schedulers       | dev  | Deployment/scheduler-service: dev runs one replica, not 2
            overlay-dev-no-dlq               | dev  | topic cohort.dlq is not a KafkaTopic
            overlay-dev-prompts-partitions   | dev  | cohort.prompts has 6 partitions, cohort.lead.inbox 12
            """)
    void eachBrokenOverlayIsCaughtWithAMessageNamingTheDefect(String fixture, String overlay, String message) {
        Function<Manifest, List<String>> rule = overlay.equals("prod") ? OverlayShape::prod : OverlayShape::dev;
        assertThat(rule.apply(Manifest.of(Manifest.testResources().resolve("broken").resolve(fixture)))).anySatisfy(v -> assertThat(v).contains(message));
    }
}

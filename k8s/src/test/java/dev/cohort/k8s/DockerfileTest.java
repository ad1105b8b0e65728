package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The services' JVM images as their Dockerfiles build them: on the JDK 25 runtime that {@link RunJava} models, each
 * trains its start-up cache (JDK 25 AOT cache) in the build and passes it to every start ({@link
 * Dockerfile#aotCacheViolations}); and that check fails when a Dockerfile drops or breaks either half.
 */
class DockerfileTest {

    static List<String> services() {
        return Dockerfile.services();
    }

    @Test
    void everyServiceHasAJvmDockerfile() {
        assertThat(services()).containsExactlyInAnyOrder("lead-service", "teammate-service", "scheduler-service", "tool-runner-service");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void isBuiltOnTheJdk25RuntimeTheChecksModel(String service) {
        assertThat(Dockerfile.of(service).from()).as("%s's base image", service).startsWith(RunJava.IMAGE + ":");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void trainsItsAotCacheInTheBuildAndPassesItToEveryStart(String service) {
        Dockerfile d = Dockerfile.of(service);
        assertThat(d.aotCacheViolations()).as("%s", d.name()).isEmpty();
        // the training start: the image's defaults (compact object headers), the pods' collector, Quarkus stopping
        // after its initialisation, the cache written where every start reads it
        List<String> trained = Dockerfile.trainingOptions(d.trainings().getFirst());
        assertThat(trained).contains("-XX:+UseCompactObjectHeaders", "-XX:+UseSerialGC", Dockerfile.STOP_AFTER_INIT,
                "-XX:AOTCacheOutput=/deployments/app.aot");
        assertThat(RunJava.options(d.env())).contains("-XX:AOTCache=/deployments/app.aot");
    }

    @Test
    void theCheckFailsWhenADockerfileDropsTheTraining() throws IOException {
        assertThat(violationsOfLeadWith(t -> t.replaceAll("(?s)\nRUN GC_CONTAINER_OPTIONS=.*?exit 1; }\n", "\n")))
                .anySatisfy(v -> assertThat(v).contains("0 RUN steps train an AOT cache"));
    }

    @Test
    void theCheckFailsWhenTheImageDoesNotPassTheCache() throws IOException {
        assertThat(violationsOfLeadWith(t -> t.replace(" -XX:AOTCache=/deployments/app.aot\"", "\"")))
                .anySatisfy(v -> assertThat(v).contains("does not pass the trained cache (-XX:AOTCache=/deployments/app.aot)"));
    }

    @Test
    void theCheckFailsWhenTheTrainingBypassesRunJava() throws IOException {
        // plain java: none of the image's defaults, so no compact object headers, and the pods' JVM would refuse the cache
        assertThat(violationsOfLeadWith(t -> t.replace(Dockerfile.RUN_JAVA + " \\",
                "java -XX:AOTCacheOutput=/deployments/app.aot -Dquarkus.appcds.generate=true -jar /deployments/quarkus-run.jar \\")))
                .anySatisfy(v -> assertThat(v).contains("not through the image's " + Dockerfile.RUN_JAVA));
    }

    @Test
    void theCheckFailsWhenTheTrainingAndTheStartDifferInAnOptionTheCacheRecords() throws IOException {
        assertThat(violationsOfLeadWith(t -> t.replace("RUN GC_CONTAINER_OPTIONS=", "RUN JAVA_COMPACT_OBJECT_HEADERS=false GC_CONTAINER_OPTIONS=")))
                .anySatisfy(v -> assertThat(v).contains("UseCompactObjectHeaders is true at start but was false when the cache was trained"));
    }

    @Test
    void theCheckFailsWhenTheApplicationChangesAfterTheTraining() throws IOException {
        assertThat(violationsOfLeadWith(t -> t.replace("\nENTRYPOINT", "\nCOPY --chown=185 target/quarkus-app/app/ /deployments/app/\nENTRYPOINT")))
                .anySatisfy(v -> assertThat(v).contains("comes after the training"));
    }

    @Test
    void theCheckFailsWhenTheServiceIsNotPackagedToStopAfterItsInit() throws IOException {
        assertThat(violationsOfLeadWith(t -> t.replace(" " + Dockerfile.PACKAGE_FLAG + "\n", "\n")))
                .anySatisfy(v -> assertThat(v).contains("do not package the service with " + Dockerfile.PACKAGE_FLAG));
    }

    @Test
    void onlyTheOptionsTheJvmComparesAgainstTheCacheCountAsAMismatch() {
        List<String> trained = List.of("-XX:+UseSerialGC", "-Xmx384m", "-XX:+UseCompactObjectHeaders");
        // measured on JDK 25: another collector or heap size below 32 GB still uses the cache
        assertThat(RunJava.aotCacheMismatches(trained, List.of("-XX:+UseG1GC", "-Xmx2g", "-XX:+UseCompactObjectHeaders"))).isEmpty();
        assertThat(RunJava.aotCacheMismatches(trained, List.of("-XX:+UseSerialGC", "-Xmx40g", "-XX:+UseCompactObjectHeaders")))
                .containsExactly("UseCompressedOops is false at start but was true when the cache was trained");
        assertThat(RunJava.aotCacheMismatches(trained, List.of("-XX:+UseSerialGC", "-Xmx384m")))
                .containsExactly("UseCompactObjectHeaders is false at start but was true when the cache was trained");
    }

    private static List<String> violationsOfLeadWith(UnaryOperator<String> edit) throws IOException {
        String text = Files.readString(Dockerfile.path("lead-service"));
        String edited = edit.apply(text);
        assertThat(edited).as("the edit applies").isNotEqualTo(text);
        return Dockerfile.parse("lead-service/src/main/docker/Dockerfile.jvm (edited)", edited).aotCacheViolations();
    }
}

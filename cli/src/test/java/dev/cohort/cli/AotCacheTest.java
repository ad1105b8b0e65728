package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which AOT cache flags a service gets: a cache is offered only for the build and JVM it was trained for. */
class AotCacheTest {

    @TempDir
    Path tmp;

    private Path app() throws Exception {
        Path app = Files.createDirectories(tmp.resolve("quarkus-app"));
        Files.createDirectories(app.resolve("lib/main"));
        Files.writeString(app.resolve("quarkus-run.jar"), "run");
        Files.writeString(app.resolve("lib/main/a.jar"), "a");
        return app.resolve("quarkus-run.jar");
    }

    @Test
    void aBuildsFingerprintChangesWithItsFilesAndNotWithTheCachesOwn() throws Exception {
        Path jar = app();
        String before = AotCache.fingerprint(jar);
        Files.writeString(AotCache.cache(jar), "cache");
        Files.writeString(AotCache.stamp(jar), "stamp");
        Files.writeString(AotCache.configuration(jar), "conf");
        assertThat(AotCache.fingerprint(jar)).isEqualTo(before);
        Files.writeString(jar.resolveSibling("lib/main/a.jar"), "a, rebuilt");
        assertThat(AotCache.fingerprint(jar)).isNotEqualTo(before);
        String size = AotCache.fingerprint(jar);
        Files.setLastModifiedTime(jar.resolveSibling("lib/main/a.jar"), FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        assertThat(AotCache.fingerprint(jar)).as("a jar rebuilt to the same size").isNotEqualTo(size);
    }

    @Test
    void aCacheIsOfferedOnlyWithTheStampOfThisBuild() throws Exception {
        Path jar = app();
        assertThat(AotCache.runFlags(jar)).as("no cache").isEmpty();
        Files.writeString(AotCache.cache(jar), "cache");
        assertThat(AotCache.runFlags(jar)).as("a cache without a stamp").isEmpty();
        Files.writeString(AotCache.stamp(jar), AotCache.fingerprint(jar) + "\n");
        assertThat(AotCache.runFlags(jar)).isEqualTo(AotCache.supported()
                ? List.of("-XX:AOTCache=" + AotCache.cache(jar)) : List.of());
        Files.writeString(jar.resolveSibling("lib/main/b.jar"), "a new dependency");
        assertThat(AotCache.runFlags(jar)).as("a cache of the build before").isEmpty();
        AotCache.clear(jar);
        assertThat(jar.getParent().toFile().list()).doesNotContain(AotCache.CACHE, AotCache.STAMP, AotCache.CONFIGURATION);
    }

    @Test
    void cohortUpRecordsForTheTrainingUsesTheCacheOrNone() throws Exception {
        Path jar = app();
        Files.writeString(AotCache.cache(jar), "cache");
        Files.writeString(AotCache.stamp(jar), AotCache.fingerprint(jar));
        assertThat(UpCommand.aotFlags("0", jar)).isEmpty();
        assertThat(UpCommand.aotFlags(null, jar)).isEqualTo(AotCache.runFlags(jar));
        assertThat(UpCommand.aotFlags("record", jar)).isEqualTo(AotCache.supported()
                ? List.of("-XX:AOTMode=record", "-XX:AOTConfiguration=" + AotCache.configuration(jar)) : List.of());
    }

    @Test
    void onAJdkBefore25NothingIsOfferedEvenWithAFreshCache() throws Exception {
        Path jar = app();
        Files.writeString(AotCache.cache(jar), "cache");
        Files.writeString(AotCache.stamp(jar), AotCache.fingerprint(jar));
        assertThat(AotCache.supported(21)).isFalse();
        assertThat(AotCache.supported(24)).isFalse();
        assertThat(AotCache.supported(25)).isTrue();
        assertThat(AotCache.runFlags(jar, 21)).isEmpty();
        assertThat(AotCache.runFlags(jar, 25)).containsExactly("-XX:AOTCache=" + AotCache.cache(jar));
    }
}

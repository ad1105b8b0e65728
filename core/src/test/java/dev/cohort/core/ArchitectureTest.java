package dev.cohort.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** core is the engine and the wire: it runs in any host, so it names no framework, broker or database. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cohort.core");

    @Test
    void coreNamesNoQuarkusKafkaOrJdbc() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.quarkus..", "org.apache.kafka..",
                "java.sql..", "javax.sql..", "jakarta.enterprise..", "jakarta.inject..", "jakarta.ws..", "io.vertx..")
                .check(MAIN);
    }
}

package dev.cohort.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * core is the engine and the wire: it runs in any host, so it names no framework, broker or database; and its packages
 * (engine, llm, tools, memory, team, host, toolrunner, protocol, retry, http, shell, trace) depend on each other one way.
 */
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

    @Test
    void packagesFormNoCycle() {
        slices().matching("dev.cohort.core.(*)..").should().beFreeOfCycles().check(MAIN);
    }
}

package dev.cohort.teammate;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * teammate-service is cut by feature: {@code inbox} (the inbox topic, its partitions and what arrives on it) on top,
 * then {@code agent} (the teammate's host and program), {@code protocols} (shutdown and plan approval), {@code tasks}
 * (claiming and holding tasks), {@code engine}, {@code lifecycle} (a teammate's record, phases and events) and
 * {@code config}. These rules keep the features from growing into each other.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cohort.teammate");

    @Test
    void featurePackagesFormNoCycle() {
        slices().matching("dev.cohort.teammate.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void tasksAndProtocolsKnowNothingOfEachOtherOrTheHost() {
        noClasses().that().resideInAPackage("dev.cohort.teammate.tasks..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.teammate.protocols..",
                        "dev.cohort.teammate.agent..", "dev.cohort.teammate.inbox..")
                .check(MAIN);
        noClasses().that().resideInAPackage("dev.cohort.teammate.protocols..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.teammate.tasks..",
                        "dev.cohort.teammate.agent..", "dev.cohort.teammate.inbox..")
                .check(MAIN);
    }

    @Test
    void noOtherServiceIsImported() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.cohort.lead..",
                "dev.cohort.scheduler..", "dev.cohort.toolrunner..", "dev.cohort.cli..")
                .check(MAIN);
    }
}

package dev.cohort.scheduler;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The scheduler is cut by feature: {@code jobs} (cron jobs, their rules and their store), {@code firing} (the loop
 * that fires due jobs and publishes them), {@code api}, {@code client} (the lead's team directory), {@code config};
 * {@code SchedulerBeans} at the root wires them.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cohort.scheduler");

    @Test
    void featurePackagesFormNoCycle() {
        slices().matching("dev.cohort.scheduler.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void jobsKnowNothingOfFiringOrTheHttpLayer() {
        noClasses().that().resideInAPackage("dev.cohort.scheduler.jobs..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.scheduler.firing..",
                        "dev.cohort.scheduler.api..", "dev.cohort.scheduler.client..")
                .check(MAIN);
    }
}

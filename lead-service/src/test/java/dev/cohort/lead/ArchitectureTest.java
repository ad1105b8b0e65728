package dev.cohort.lead;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * lead-service is cut by feature: {@code agent} (the lead itself: its engine, host, program, ownership and inputs) on
 * top; below it {@code prompts}, {@code approvals}, {@code protocols}, {@code teammates}, {@code tasks}, {@code crons},
 * {@code memory}, {@code budgets}, {@code events} (the event log, its stream and the roster it keeps), {@code inbox},
 * {@code usage} and {@code teams}; {@code web} (problem+json, the dashboard's login), {@code store} (JDBC and tool
 * effects) and {@code config} at the bottom. These rules keep the features from growing into each other.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cohort.lead");

    @Test
    void featurePackagesFormNoCycle() {
        slices().matching("dev.cohort.lead.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void onlyTheLeadItselfKnowsItsEngineAndHost() {
        noClasses().that().resideOutsideOfPackage("dev.cohort.lead.agent..")
                .should().dependOnClassesThat().resideInAPackage("dev.cohort.lead.agent..")
                .check(MAIN);
    }

    @Test
    void thePlumbingKnowsNoFeature() {
        noClasses().that().resideInAnyPackage("dev.cohort.lead.store..", "dev.cohort.lead.config..",
                "dev.cohort.lead.web..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.lead.agent..", "dev.cohort.lead.prompts..",
                        "dev.cohort.lead.approvals..", "dev.cohort.lead.protocols..", "dev.cohort.lead.teammates..",
                        "dev.cohort.lead.tasks..", "dev.cohort.lead.crons..", "dev.cohort.lead.memory..",
                        "dev.cohort.lead.budgets..", "dev.cohort.lead.events..", "dev.cohort.lead.inbox..",
                        "dev.cohort.lead.usage..", "dev.cohort.lead.teams..")
                .check(MAIN);
    }

    @Test
    void noOtherServiceIsImported() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.cohort.teammate..",
                "dev.cohort.scheduler..", "dev.cohort.toolrunner..", "dev.cohort.cli..")
                .check(MAIN);
    }
}

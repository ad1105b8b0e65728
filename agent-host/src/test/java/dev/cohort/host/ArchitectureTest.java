package dev.cohort.host;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * agent-host: {@code service} (a kind of agent: host, ownership, inbox consumer) over {@code ownership} and
 * {@code store} (the fenced store, inboxes, ledgers); {@code engine} assembles engines and {@code client} calls the
 * lead's internal API. Hosting knows nothing of how an engine is assembled or whom it calls, and nothing of any service.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cohort.host");

    @Test
    void packagesFormNoCycle() {
        slices().matching("dev.cohort.host.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void hostingKnowsNoEngineAssemblyAndNoClient() {
        noClasses().that().resideInAnyPackage("dev.cohort.host.service..", "dev.cohort.host.ownership..",
                "dev.cohort.host.store..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.host.engine..", "dev.cohort.host.client..")
                .check(MAIN);
    }

    @Test
    void noServiceIsImported() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.cohort.lead..", "dev.cohort.teammate..",
                "dev.cohort.scheduler..", "dev.cohort.toolrunner..", "dev.cohort.cli..")
                .check(MAIN);
    }
}

package dev.cohort.toolrunner;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The tool runner is cut by feature: {@code api} (HTTP), {@code calls} (the journal and dispatch of calls),
 * {@code tools} (one handler per tool), {@code background}, {@code worktrees}, {@code workspace} (paths and files),
 * {@code sandbox} (where a command runs), {@code process} (running and watching one command) and {@code mcp} (the
 * teams' MCP servers). These rules keep the features from growing into each other.
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cohort.toolrunner");

    @Test
    void featurePackagesFormNoCycle() {
        slices().matching("dev.cohort.toolrunner.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theSharedVocabularyDependsOnNoFeature() {
        // ToolError, the request refusals, the phase clock and after-response work are used by every feature
        noClasses().that().resideInAPackage("dev.cohort.toolrunner")
                .should().dependOnClassesThat().resideInAPackage("dev.cohort.toolrunner.*..")
                .check(MAIN);
    }

    @Test
    void runningAProcessKnowsNothingOfSandboxesWorkspacesOrCalls() {
        noClasses().that().resideInAPackage("dev.cohort.toolrunner.process..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.toolrunner.sandbox..",
                        "dev.cohort.toolrunner.workspace..", "dev.cohort.toolrunner.worktrees..",
                        "dev.cohort.toolrunner.background..", "dev.cohort.toolrunner.calls..",
                        "dev.cohort.toolrunner.tools..", "dev.cohort.toolrunner.api..")
                .check(MAIN);
    }

    @Test
    void workspacePathsAndFilesRunNoCommand() {
        noClasses().that().resideInAPackage("dev.cohort.toolrunner.workspace..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.toolrunner.sandbox..",
                        "dev.cohort.toolrunner.process..", "dev.cohort.toolrunner.worktrees..",
                        "dev.cohort.toolrunner.background..", "dev.cohort.toolrunner.calls..",
                        "dev.cohort.toolrunner.tools..", "dev.cohort.toolrunner.api..")
                .check(MAIN);
    }

    @Test
    void theMcpHostKnowsNothingOfCallsToolsOrJobs() {
        // it starts servers where a command would run and speaks MCP to them; the journal of calls is the caller's
        noClasses().that().resideInAPackage("dev.cohort.toolrunner.mcp..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.cohort.toolrunner.calls..",
                        "dev.cohort.toolrunner.tools..", "dev.cohort.toolrunner.background..",
                        "dev.cohort.toolrunner.worktrees..", "dev.cohort.toolrunner.api..")
                .check(MAIN);
    }

    @Test
    void onlyTheHttpLayerNamesTheHttpLayer() {
        noClasses().that().resideOutsideOfPackage("dev.cohort.toolrunner.api..")
                .should().dependOnClassesThat().resideInAPackage("dev.cohort.toolrunner.api..")
                .check(MAIN);
    }
}

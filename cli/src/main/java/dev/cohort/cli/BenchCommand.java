package dev.cohort.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cohort bench}: the suites that print or publish figures; today {@code reliability}. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks and suites that publish their figures.",
        subcommands = {BenchCommand.Reliability.class})
public final class BenchCommand implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /**
     * {@code cohort bench reliability}: every fault of the reliability suite and the bad-input sweep, against the
     * packaged services, writing {@code docs/RELIABILITY.md}. It runs the {@code reliability} module's failsafe suite
     * through the repository's Maven wrapper (the suite is a test module: its stack, faults and invariant checks are
     * JUnit code), so what the command runs and what {@code ./mvnw verify} runs are the same code.
     */
    @Command(name = "reliability", mixinStandardHelpOptions = true,
            description = "Inject every fault into real work, check the invariants from the stores, run the bad-input sweep "
                    + "and write docs/RELIABILITY.md (about 10-20 min on 2 cores).")
    static final class Reliability implements Callable<Integer> {

        @Option(names = "--short", description = "Only the subset ./mvnw verify runs (one fault of each kind).")
        boolean shortSuite;

        @Option(names = "--no-build", description = "Use the service jars already built instead of packaging them first.")
        boolean noBuild;

        @Option(names = "--report", paramLabel = "FILE", description = "Where to write the report (default docs/RELIABILITY.md).")
        String report = "docs/RELIABILITY.md";

        @Override
        public Integer call() throws Exception {
            Path home = Path.of(System.getProperty("cohort.home", ".")).toAbsolutePath().normalize();
            Path mvnw = home.resolve("mvnw");
            if (!Files.isExecutable(mvnw) || !Files.isDirectory(home.resolve("reliability"))) {
                System.err.println("cohort bench reliability: " + home + " is not a Cohort repository (no mvnw or reliability/)");
                return 2;
            }
            List<String> cmd = command(mvnw.toString(), noBuild, !shortSuite, report);
            System.out.println("cohort bench reliability: " + String.join(" ", cmd));
            Process p = new ProcessBuilder(cmd).directory(home.toFile()).inheritIO().start();
            int rc = p.waitFor();
            System.out.println(rc == 0 ? "cohort bench reliability: every invariant held; report in " + report
                    : "cohort bench reliability: failures (exit " + rc + "); the report in " + report + " says which");
            return rc == 0 ? 0 : 1;
        }

        /** The Maven invocation: only the reliability suite's ITs run; the services are packaged first unless noBuild. */
        static List<String> command(String mvnw, boolean noBuild, boolean full, String report) {
            List<String> cmd = new ArrayList<>(List.of(mvnw, "-B", "-pl",
                    noBuild ? "reliability" : "tool-runner-service,lead-service,teammate-service,scheduler-service,reliability",
                    "-am", "verify", "-DskipNativeSources", "-Dtest=NONE", "-Dsurefire.failIfNoSpecifiedTests=false",
                    "-Dit.test=ReliabilitySuiteIT", "-Dfailsafe.failIfNoSpecifiedTests=false",
                    "-Dcohort.reliability.full=" + full, "-Dcohort.reliability.strict=true", "-Dcohort.reliability.report=" + report));
            return cmd;
        }
    }
}

package dev.cohort.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code cohort} command. */
@Command(name = "cohort", mixinStandardHelpOptions = true, version = "cohort 0.1.0",
        description = "A distributed team of coding agents.",
        subcommands = {UpCommand.class, ChatCommand.class, SendCommand.class, TasksCommand.class, ApproveCommand.class,
            TeamCommand.class, CronCommand.class, DemoCommand.class, AotTrainCommand.class, BenchCommand.class, BudgetCommand.class,
            UsageCommand.class, DashboardCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}

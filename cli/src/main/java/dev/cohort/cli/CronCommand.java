package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cohort cron list|add|rm}: a team's cron jobs on the scheduler-service. */
@Command(name = "cron", mixinStandardHelpOptions = true, description = "List, add or remove a team's cron jobs.",
        subcommands = {CronCommand.ListJobs.class, CronCommand.Add.class, CronCommand.Remove.class})
public final class CronCommand implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }

    /** Options of every cron subcommand: the scheduler's URL and the team. */
    abstract static class SchedulerCommand extends ApiCommand {

        @Option(names = "--scheduler-url", paramLabel = "URL",
                description = "scheduler-service URL (default: env COHORT_SCHEDULER_URL, the running `cohort up`, or http://127.0.0.1:8082).")
        String schedulerUrl;

        @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
        String team = "default";

        ApiClient scheduler() {
            return ApiClient.scheduler(schedulerUrl, token);
        }

        String crons() {
            return "/api/v1/teams/" + ApiClient.seg(team) + "/crons";
        }
    }

    /** {@code cohort cron list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the team's cron jobs.")
    public static final class ListJobs extends SchedulerCommand {
        @Override
        int run() throws IOException, InterruptedException {
            JsonNode jobs = scheduler().get(crons());
            List<List<String>> rows = new ArrayList<>();
            jobs.forEach(j -> rows.add(List.of(j.path("id").asText(), j.path("cron").asText(), j.path("timezone").asText(""),
                    j.path("target").asText(""), j.path("recurring").asBoolean(true) ? "yes" : "once",
                    j.path("nextFireAt").asText("-"), j.path("prompt").asText())));
            Table.render(List.of("ID", "CRON", "TZ", "TARGET", "RECURRING", "NEXT", "PROMPT"), rows).forEach(System.out::println);
            if (rows.isEmpty()) {
                System.out.println("(no cron jobs)");
            }
            return 0;
        }
    }

    /** {@code cohort cron add "<cron>" "<prompt>"}. */
    @Command(name = "add", mixinStandardHelpOptions = true, description = "Schedule a prompt: cohort cron add \"*/5 * * * *\" \"check the build\"")
    public static final class Add extends SchedulerCommand {

        @Parameters(index = "0", paramLabel = "CRON", description = "5-field cron expression or a macro (@hourly, @daily...).")
        String cron;

        @Parameters(index = "1", paramLabel = "PROMPT", description = "The prompt to send when it fires.")
        String prompt;

        @Option(names = "--target", description = "lead (default) or a teammate's name.")
        String target;

        @Option(names = "--once", description = "Fire once, then remove the job.")
        boolean once;

        @Option(names = "--not-durable", description = "Do not survive a scheduler restart.")
        boolean notDurable;

        @Option(names = "--timezone", paramLabel = "ZONE", description = "IANA zone the cron is read in (default UTC).")
        String timezone;

        @Option(names = "--missed-policy", paramLabel = "P", description = "skip (default) or fire-once.")
        String missedPolicy;

        @Override
        int run() throws IOException, InterruptedException {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("cron", cron);
            body.put("prompt", prompt);
            body.put("createdBy", "cli");
            if (target != null) {
                body.put("target", target);
            }
            if (once) {
                body.put("recurring", false);
            }
            if (notDurable) {
                body.put("durable", false);
            }
            if (timezone != null) {
                body.put("timezone", timezone);
            }
            if (missedPolicy != null) {
                body.put("missedPolicy", missedPolicy);
            }
            JsonNode j = scheduler().post(crons(), body);
            System.out.println(TerminalText.line("scheduled " + j.path("id").asText() + " (" + j.path("cron").asText() + " "
                    + j.path("timezone").asText("UTC") + "), next at " + j.path("nextFireAt").asText("?")));
            return 0;
        }
    }

    /** {@code cohort cron rm <id>}. */
    @Command(name = "rm", aliases = "remove", mixinStandardHelpOptions = true, description = "Remove a cron job: it never fires again.")
    public static final class Remove extends SchedulerCommand {

        @Parameters(index = "0", paramLabel = "ID", description = "The job id (cron_...).")
        String id;

        @Override
        int run() throws IOException, InterruptedException {
            scheduler().delete(crons() + "/" + ApiClient.seg(id));
            System.out.println("removed " + TerminalText.line(id));
            return 0;
        }
    }
}

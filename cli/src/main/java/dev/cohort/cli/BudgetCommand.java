package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort budget [--team T] [--set key=value …] [--json]}: a team's budgets ({@code GET/PUT
 * /api/v1/teams/{team}/budgets}) as a table, in force / configured default / the team's own; {@code --set} changes the
 * team's own (0 = unlimited, {@code default} = back to the configured default), from the agents' next step. A second
 * table shows the limits on the cron jobs the team's agents create, with the configuration key of each (they are
 * the operator's, not the team's).
 */
@Command(name = "budget", mixinStandardHelpOptions = true,
        description = "Show a team's token and cost budgets, or set the team's own (--set tokens-per-team=2000000 "
                + "--set cost-per-team-usd=25 --set cost-per-team-per-day-usd=5; 0 = unlimited, default = the "
                + "configured default). The per-day budgets count the whole team's usage since 00:00 UTC and reset "
                + "then; a fresh team has a daily token budget. Also shows the limits on cron jobs the team's agents "
                + "create.")
public final class BudgetCommand extends ApiCommand {

    /** The budgets as the API names them, in order. */
    static final List<String> FIELDS = List.of("tokensPerTurn", "tokensPerAgent", "tokensPerTeam", "costPerTurnUsd",
            "costPerAgentUsd", "costPerTeamUsd", "tokensPerTeamPerDay", "costPerTeamPerDayUsd");

    static final List<String> HEADERS = List.of("BUDGET", "IN FORCE", "DEFAULT", "TEAM'S OWN");

    static final List<String> CRON_HEADERS = List.of("CRON JOBS AGENTS CREATE", "IN FORCE", "SET BY");

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Set one of the team's budgets: tokens-per-turn, tokens-per-agent, tokens-per-team, "
                    + "cost-per-turn-usd, cost-per-agent-usd, cost-per-team-usd, tokens-per-team-per-day, "
                    + "cost-per-team-per-day-usd (the team's usage since 00:00 UTC; or their API names, e.g. "
                    + "tokensPerTeam); VALUE a number ≥ 0 (0 = unlimited) or 'default'. Repeatable.")
    List<String> set = new ArrayList<>();

    @Option(names = "--json", description = "Print the answer of lead-service as JSON.")
    boolean json;

    @Override
    int run() throws IOException, InterruptedException {
        Map<String, Object> body;
        try {
            body = body(set);
        } catch (IllegalArgumentException e) {
            System.err.println(name() + ": " + e.getMessage());
            return REQUEST_FAILED;
        }
        String path = "/api/v1/teams/" + ApiClient.seg(team) + "/budgets";
        JsonNode answer = body.isEmpty() ? lead().get(path) : lead().put(path, body);
        if (json) {
            System.out.println(Json.write(answer));
        } else {
            table(answer).forEach(System.out::println);
        }
        return 0;
    }

    /**
     * The PUT body of {@code --set key=value} options: keys in kebab case or as the API names them, values numbers
     * ≥ 0 or {@code default} ({@code null}: back to the configured default). A bad key or value is an
     * {@link IllegalArgumentException} naming it.
     */
    static Map<String, Object> body(List<String> sets) {
        Map<String, Object> body = new LinkedHashMap<>();
        for (String s : sets) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--set " + s + ": expected KEY=VALUE, e.g. tokens-per-team=2000000");
            }
            String key = field(s.substring(0, eq).strip());
            String v = s.substring(eq + 1).strip();
            if (v.equalsIgnoreCase("default")) {
                body.put(key, null);
                continue;
            }
            BigDecimal n;
            try {
                n = new BigDecimal(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--set " + s + ": " + key + " must be a number ≥ 0 (0 = unlimited) "
                        + "or 'default', not '" + v + "'");
            }
            if (n.signum() < 0) {
                throw new IllegalArgumentException("--set " + s + ": " + key + " must be 0 (unlimited) or positive");
            }
            if (key.startsWith("tokens")) {
                try {
                    body.put(key, n.longValueExact());
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("--set " + s + ": " + key + " counts tokens: a whole number");
                }
            } else {
                body.put(key, n.doubleValue());
            }
        }
        return body;
    }

    /** The API name of {@code key} ({@code tokens-per-team} or {@code tokensPerTeam}). */
    static String field(String key) {
        for (String f : FIELDS) {
            if (f.equals(key) || kebab(f).equals(key.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown budget '" + key + "'; one of "
                + String.join(", ", FIELDS.stream().map(BudgetCommand::kebab).toList()));
    }

    static String kebab(String f) {
        return f.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    /**
     * One row per budget: in force, the configured default, the team's own ({@code -} when it set none); then, when
     * the answer has them, the limits on cron jobs the team's agents create ({@link #cronTable}).
     */
    static List<String> table(JsonNode b) {
        List<List<String>> rows = new ArrayList<>();
        for (String f : FIELDS) {
            boolean money = f.startsWith("cost");
            rows.add(List.of(kebab(f), value(b.get(f), money), value(b.path("defaults").get(f), money),
                    b.path("overrides").has(f) ? value(b.path("overrides").get(f), money) : "-"));
        }
        List<String> out = new ArrayList<>(Table.render(HEADERS, rows));
        JsonNode cron = b.path("cronJobs");
        if (cron.isObject()) {
            out.add("");
            out.addAll(cronTable(cron));
        }
        return out;
    }

    /**
     * The limits on cron jobs the team's agents create ({@code cronJobs} of the answer): whether a person approves
     * each, how many the team's agents may keep (with how many they have) and how often one may fire, each with the
     * key that sets it; the general limits on every job follow. When scheduler-service could not be asked, a line
     * says so instead of its limits.
     */
    static List<String> cronTable(JsonNode cron) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("approval", cron.path("approval").asText("-"), "cohort.lead.model-cron-jobs"));
        JsonNode s = cron.path("scheduler");
        if (s.isObject()) {
            rows.add(List.of("jobs per team", s.path("maxModelJobsPerTeam").asText() + " (" + s.path("modelJobs").asText()
                    + " now)", "cohort.scheduler.model-jobs.max-per-team"));
            rows.add(List.of("min interval", duration(s.path("modelMinIntervalSeconds").asLong()),
                    "cohort.scheduler.model-jobs.min-interval"));
            rows.add(List.of("all jobs per team", s.path("maxJobsPerTeam").asText() + " (" + s.path("jobs").asText()
                    + " now)", "cohort.scheduler.max-jobs-per-team"));
            rows.add(List.of("all jobs min interval", duration(s.path("minIntervalSeconds").asLong()),
                    "cohort.scheduler.min-interval"));
        }
        List<String> out = new ArrayList<>(Table.render(CRON_HEADERS, rows));
        if (!s.isObject()) {
            out.add("(the scheduler's limits are unknown: " + cron.path("schedulerUnavailable").asText("no answer") + ")");
        }
        return out;
    }

    /** {@code 10m}, {@code 1h}, {@code 90s}: a whole unit when there is one. */
    static String duration(long seconds) {
        if (seconds > 0 && seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        if (seconds > 0 && seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }

    private static String value(JsonNode n, boolean money) {
        if (n == null || !n.isNumber()) {
            return "-";
        }
        if (n.asDouble() == 0) {
            return "unlimited";
        }
        if (money) {
            BigDecimal d = BigDecimal.valueOf(n.asDouble()).stripTrailingZeros();
            return "$" + (d.scale() < 2 ? d.setScale(2) : d).toPlainString();
        }
        return Long.toString(n.asLong());
    }
}

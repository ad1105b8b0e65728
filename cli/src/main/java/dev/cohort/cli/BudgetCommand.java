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
 * team's own (0 = unlimited, {@code default} = back to the configured default), from the agents' next step.
 */
@Command(name = "budget", mixinStandardHelpOptions = true,
        description = "Show a team's token and cost budgets, or set the team's own (--set tokens-per-team=2000000 "
                + "--set cost-per-team-usd=25 --set cost-per-team-per-day-usd=5; 0 = unlimited, default = the "
                + "configured default). The per-day budgets count the whole team's usage since 00:00 UTC and reset "
                + "then.")
public final class BudgetCommand extends ApiCommand {

    /** The budgets as the API names them, in order. */
    static final List<String> FIELDS = List.of("tokensPerTurn", "tokensPerAgent", "tokensPerTeam", "costPerTurnUsd",
            "costPerAgentUsd", "costPerTeamUsd", "tokensPerTeamPerDay", "costPerTeamPerDayUsd");

    static final List<String> HEADERS = List.of("BUDGET", "IN FORCE", "DEFAULT", "TEAM'S OWN");

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

    /** One row per budget: in force, the configured default, the team's own ({@code -} when it set none). */
    static List<String> table(JsonNode b) {
        List<List<String>> rows = new ArrayList<>();
        for (String f : FIELDS) {
            boolean money = f.startsWith("cost");
            rows.add(List.of(kebab(f), value(b.get(f), money), value(b.path("defaults").get(f), money),
                    b.path("overrides").has(f) ? value(b.path("overrides").get(f), money) : "-"));
        }
        return Table.render(HEADERS, rows);
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

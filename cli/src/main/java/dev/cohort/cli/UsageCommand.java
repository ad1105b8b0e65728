package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cohort usage}: a team's model calls, tokens and cost per agent, turn or day (the usage endpoint). */
@Command(name = "usage", mixinStandardHelpOptions = true,
        description = "Show a team's model calls, tokens and cost per agent, turn or day.")
public final class UsageCommand extends ApiCommand {

    /** What the rows are. */
    enum By {
        agent, turn, day
    }

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Option(names = "--by", description = "Group by: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    By by = By.agent;

    @Option(names = "--since", paramLabel = "DATE", description = "Only calls on or after this UTC day (2026-12-02).")
    String since;

    @Option(names = "--agent", description = "Only this agent's calls.")
    String agent;

    @Option(names = "--json", description = "Print the API's JSON instead of a table.")
    boolean json;

    @Override
    int run() throws IOException, InterruptedException {
        StringBuilder path = new StringBuilder("/api/v1/teams/").append(ApiClient.seg(team)).append("/usage?by=")
                .append(by.name());
        if (since != null) {
            path.append("&since=").append(ApiClient.seg(since));
        }
        if (agent != null) {
            path.append("&agent=").append(ApiClient.seg(agent));
        }
        JsonNode report = lead().get(path.toString());
        if (json) {
            System.out.println(TerminalText.json(report));
        } else {
            table(report).forEach(System.out::println);
        }
        return 0;
    }

    /** The report as a table: one row per group, then the total; a line when there were no calls. */
    static List<String> table(JsonNode report) {
        String by = report.path("by").asText("agent");
        List<String> headers = new ArrayList<>();
        switch (by) {
            case "turn" -> headers.addAll(List.of("TURN", "AGENT"));
            case "day" -> headers.add("DAY");
            default -> headers.add("AGENT");
        }
        headers.addAll(List.of("CALLS", "PROMPT", "COMPLETION", "CACHED", "CACHE-WRITE", "COST"));
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode r : report.path("rows")) {
            List<String> row = new ArrayList<>();
            row.add(r.path("key").asText("-"));
            if (by.equals("turn")) {
                row.add(r.path("agent").asText("-"));
            }
            row.addAll(counters(r));
            rows.add(row);
        }
        if (rows.isEmpty()) {
            List<String> out = new ArrayList<>(Table.render(headers, rows));
            out.add("(no model calls)");
            return out;
        }
        List<String> total = new ArrayList<>();
        total.add("TOTAL");
        if (by.equals("turn")) {
            total.add("");
        }
        total.addAll(counters(report.path("total")));
        rows.add(total);
        List<String> out = new ArrayList<>(Table.render(headers, rows));
        List<String> unpriced = new ArrayList<>();
        report.path("total").path("unpricedModels").forEach(m -> unpriced.add(m.asText()));
        if (!priceKnown(report.path("total"))) {
            out.add("unknown price: " + (unpriced.isEmpty() ? "some calls' models have" : String.join(", ", unpriced)
                    + (unpriced.size() == 1 ? " has" : " have")) + " no price; set cohort.engine.prices.\"<model>\".*");
        }
        return out;
    }

    private static List<String> counters(JsonNode n) {
        return List.of(Long.toString(n.path("modelCalls").asLong()), Long.toString(n.path("promptTokens").asLong()),
                Long.toString(n.path("completionTokens").asLong()), Long.toString(n.path("cachedTokens").asLong()),
                Long.toString(n.path("cacheWriteTokens").asLong()), cost(n));
    }

    /**
     * The cost column: dollars when every call had a price; {@code unknown price} when none had; the known part and
     * {@code + unknown} when only some had (never $0 for calls whose cost is unknown).
     */
    static String cost(JsonNode n) {
        String usd = String.format(Locale.ROOT, "$%.4f", n.path("costUsd").asDouble());
        if (priceKnown(n)) {
            return usd;
        }
        return n.path("unpricedCalls").asLong() < n.path("modelCalls").asLong() ? usd + " + unknown" : "unknown price";
    }

    /** Whether the counters' cost is whole: a server from before the field says nothing, which is taken as yes. */
    private static boolean priceKnown(JsonNode n) {
        return n.path("priceKnown").asBoolean(true);
    }
}

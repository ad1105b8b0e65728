package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cohort team list|create|show}: the teams of the lead-service, and one team's agents. */
@Command(name = "team", mixinStandardHelpOptions = true, description = "List or create teams, or show a team's agents.",
        subcommands = {TeamCommand.ListTeams.class, TeamCommand.Create.class, TeamCommand.Show.class})
public final class TeamCommand implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }

    /** {@code cohort team list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the teams.")
    public static final class ListTeams extends ApiCommand {
        @Override
        int run() throws IOException, InterruptedException {
            JsonNode teams = lead().get("/api/v1/teams");
            List<List<String>> rows = new ArrayList<>();
            teams.forEach(t -> rows.add(List.of(t.path("id").asText(), t.path("permissionMode").asText(),
                    t.path("workspace").asText(""), t.path("createdAt").asText(""))));
            Table.render(List.of("ID", "PERMISSION MODE", "WORKSPACE", "CREATED"), rows).forEach(System.out::println);
            return 0;
        }
    }

    /** {@code cohort team show [--team T]}: the team's agents, one row each. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Show a team's agents: role, phase, current task, tokens, cost and the replica hosting each.")
    public static final class Show extends ApiCommand {

        static final List<String> HEADERS = List.of("NAME", "ROLE", "PHASE", "CURRENT TASK", "TOKENS", "COST", "REPLICA");

        /** What a cell shows when lead-service does not say (an older lead-service, a field it leaves out, null). */
        static final String UNKNOWN = "-";

        @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
        String team = "default";

        @Override
        int run() throws IOException, InterruptedException {
            JsonNode agents = lead().get("/api/v1/teams/" + ApiClient.seg(team) + "/agents");
            if (!agents.isArray()) {
                throw new IOException("unexpected answer from " + lead().baseUrl() + ": not a list of agents");
            }
            table(agents).forEach(System.out::println);
            return 0;
        }

        /**
         * One row per agent of {@code GET /api/v1/teams/{team}/agents}: name, role, phase ({@code status}),
         * {@code currentTask}, tokens (input + output), cost in USD, {@code replica}; {@value #UNKNOWN} where the
         * answer has no value.
         */
        static List<String> table(JsonNode agents) {
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode a : agents) {
                JsonNode usage = a.path("usage");
                rows.add(List.of(text(a.get("name")), text(a.get("role")), text(a.get("status")), text(a.get("currentTask")),
                        tokens(usage), cost(usage.get("costUsd")), text(a.get("replica"))));
            }
            List<String> out = new ArrayList<>(Table.render(HEADERS, rows));
            if (rows.isEmpty()) {
                out.add("(no agents)");
            }
            return out;
        }

        private static String text(JsonNode n) {
            if (n == null || n.isNull() || n.isMissingNode()) {
                return UNKNOWN;
            }
            String t = n.isValueNode() ? n.asText() : n.toString();
            return t.isBlank() ? UNKNOWN : t;
        }

        /** Input + output tokens; a count that is missing adds nothing, both missing is unknown. */
        private static String tokens(JsonNode usage) {
            JsonNode in = usage.get("inputTokens");
            JsonNode out = usage.get("outputTokens");
            boolean hasIn = in != null && in.isNumber();
            boolean hasOut = out != null && out.isNumber();
            if (!hasIn && !hasOut) {
                return UNKNOWN;
            }
            return Long.toString((hasIn ? in.asLong() : 0) + (hasOut ? out.asLong() : 0));
        }

        /** {@code $0.0123}: four decimals, as {@code cohort chat}'s turn summary shows cost. */
        private static String cost(JsonNode costUsd) {
            return costUsd != null && costUsd.isNumber() ? String.format(Locale.ROOT, "$%.4f", costUsd.asDouble()) : UNKNOWN;
        }
    }

    /** {@code cohort team create <id> [--permission-mode M] [--workspace W]}. */
    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a team.")
    public static final class Create extends ApiCommand {

        @Parameters(index = "0", paramLabel = "ID", description = "Team id (lowercase letters, digits, '-').")
        String id;

        @Option(names = "--permission-mode", paramLabel = "M",
                description = "default, accept-edits, plan, bypass or deny-asks (default: default).")
        String permissionMode;

        @Option(names = "--workspace", paramLabel = "DIR",
                description = "Workspace: relative to the tool runner's root, or absolute inside its workspace-roots (default: teams/<id>).")
        String workspace;

        @Override
        int run() throws IOException, InterruptedException {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", id);
            if (permissionMode != null) {
                body.put("permissionMode", permissionMode);
            }
            if (workspace != null) {
                body.put("workspace", workspace);
            }
            JsonNode t = lead().post("/api/v1/teams", body);
            System.out.println(TerminalText.line("created team " + t.path("id").asText() + " (permission mode "
                    + t.path("permissionMode").asText() + ", workspace " + t.path("workspace").asText() + ")"));
            return 0;
        }
    }
}

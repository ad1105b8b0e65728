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

/**
 * {@code cohort team list|create|show|permissions}: the teams of the lead-service, one team's agents, and its
 * permission rules.
 */
@Command(name = "team", mixinStandardHelpOptions = true,
        description = "List or create teams, show a team's agents, or show and change its permission rules.",
        subcommands = {TeamCommand.ListTeams.class, TeamCommand.Create.class, TeamCommand.Show.class,
                TeamCommand.Permissions.class})
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
                        tokens(usage), cost(usage), text(a.get("replica"))));
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

        /**
         * {@code $0.0123}: four decimals, as {@code cohort chat}'s turn summary shows cost; {@code unknown price} when
         * the agent's calls had no known price, {@code $0.0123 + unknown} when only some had.
         */
        private static String cost(JsonNode usage) {
            JsonNode costUsd = usage.get("costUsd");
            if (costUsd == null || !costUsd.isNumber()) {
                return UNKNOWN;
            }
            String usd = String.format(Locale.ROOT, "$%.4f", costUsd.asDouble());
            long unpriced = usage.path("unpricedCalls").asLong(0);
            if (unpriced <= 0) {
                return usd;
            }
            return unpriced < usage.path("calls").asLong(0) ? usd + " + unknown" : "unknown price";
        }
    }

    /**
     * {@code cohort team permissions [--team T] [--set KIND=RULE …] [--add KIND=RULE …] [--remove RULE …] [--clear]
     * [--json]}: the team's permission rules ({@code GET/PUT /api/v1/teams/{team}/permissions}), one row each with
     * where it comes from (the team's own, set here, or the workspace's {@code .cohort/settings.json}); the options
     * change the team's own rules, which apply from each agent's next turn.
     */
    @Command(name = "permissions", mixinStandardHelpOptions = true,
            description = "Show a team's permission rules (Claude Code's syntax: Bash(npm run test:*), "
                    + "Read(./secrets/**), Edit(src/**), mcp__<server>__<tool>; deny wins over ask, ask over allow), "
                    + "or change the team's own: --set replaces them all, --add and --remove change one, --clear "
                    + "removes them. Quote each rule for the shell: --set 'deny=Bash(curl:*)'. The rules of the "
                    + "workspace's .cohort/settings.json are shown too; edit that file to change them.")
    public static final class Permissions extends ApiCommand {

        /** The three lists, in the order a decision reads them. */
        static final List<String> KINDS = List.of("deny", "ask", "allow");

        static final List<String> HEADERS = List.of("DECISION", "FROM", "RULE");

        /** How the table names the team's own rules (the API's). */
        static final String TEAM = "team";

        @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
        String team = "default";

        @Option(names = "--set", paramLabel = "KIND=RULE",
                description = "The team's rules become exactly these: KIND is allow, ask or deny, e.g. "
                        + "--set 'allow=Bash(npm test)' --set 'deny=Bash(curl:*)'. Repeatable.")
        List<String> set = new ArrayList<>();

        @Option(names = "--add", paramLabel = "KIND=RULE",
                description = "Add a rule to the team's own, e.g. --add 'ask=Edit(src/**)'. Repeatable.")
        List<String> add = new ArrayList<>();

        @Option(names = "--remove", paramLabel = "RULE",
                description = "Remove a rule from the team's own lists, e.g. --remove 'Bash(curl:*)'. Repeatable.")
        List<String> remove = new ArrayList<>();

        @Option(names = "--clear", description = "Remove every rule of the team's own (not the settings file's).")
        boolean clear;

        @Option(names = "--json", description = "Print the answer of lead-service as JSON.")
        boolean json;

        @Override
        int run() throws IOException, InterruptedException {
            String path = "/api/v1/teams/" + ApiClient.seg(team) + "/permissions";
            boolean changes = clear || !set.isEmpty() || !add.isEmpty() || !remove.isEmpty();
            JsonNode answer;
            try {
                if (!changes) {
                    answer = lead().get(path);
                } else {
                    // --set and --clear start from nothing; --add and --remove from the team's rules as they are
                    JsonNode current = clear || !set.isEmpty() ? null : lead().get(path);
                    answer = lead().put(path, body(current, set, add, remove));
                }
            } catch (IllegalArgumentException e) {
                System.err.println(name() + ": " + TerminalText.line(e.getMessage()));
                return REQUEST_FAILED;
            }
            if (json) {
                System.out.println(TerminalText.json(answer));
            } else {
                table(answer).forEach(System.out::println);
            }
            return 0;
        }

        /**
         * The PUT body: the team's own rules of {@code current} (an answer of GET; {@code null}: none), then the
         * {@code --set} and {@code --add} rules ({@code KIND=RULE}), without the {@code --remove} ones. A bad option is
         * an {@link IllegalArgumentException} naming it; the rules themselves are checked by lead-service.
         */
        static Map<String, List<String>> body(JsonNode current, List<String> sets, List<String> adds,
                List<String> removes) {
            Map<String, List<String>> body = new LinkedHashMap<>();
            for (String kind : List.of("allow", "ask", "deny")) {
                List<String> rules = new ArrayList<>();
                if (current != null) {
                    current.path(kind).forEach(r -> rules.add(r.asText()));
                }
                body.put(kind, rules);
            }
            for (String option : List.of("--set", "--add")) {
                for (String s : option.equals("--set") ? sets : adds) {
                    int eq = s.indexOf('=');
                    String kind = eq < 0 ? "" : s.substring(0, eq).strip().toLowerCase(Locale.ROOT);
                    if (!body.containsKey(kind)) {
                        throw new IllegalArgumentException(option + " " + s + ": expected KIND=RULE with KIND allow,"
                                + " ask or deny, e.g. " + option + " 'deny=Bash(curl:*)'");
                    }
                    String rule = s.substring(eq + 1).strip();
                    if (!body.get(kind).contains(rule)) {
                        body.get(kind).add(rule);
                    }
                }
            }
            for (String r : removes) {
                boolean found = false;
                for (List<String> rules : body.values()) {
                    found |= rules.remove(r.strip());
                }
                if (!found) {
                    throw new IllegalArgumentException("--remove " + r + ": the team has no such rule of its own");
                }
            }
            return body;
        }

        /**
         * One row per rule, deny first: its decision, where it comes from ({@value #TEAM} or the settings file) and
         * the rule whole; a line says when the settings file cannot be used (its last good rules are shown).
         */
        static List<String> table(JsonNode p) {
            JsonNode file = p.path("settingsFile");
            String filePath = file.path("path").asText(".cohort/settings.json");
            List<List<String>> rows = new ArrayList<>();
            for (String kind : KINDS) {
                p.path(kind).forEach(r -> rows.add(List.of(kind, TEAM, r.asText())));
                file.path(kind).forEach(r -> rows.add(List.of(kind, filePath, r.asText())));
            }
            List<String> out = new ArrayList<>(Table.render(HEADERS, rows, false));
            if (rows.isEmpty()) {
                out.add("(no rules: the team's permission mode alone decides)");
            }
            if (file.hasNonNull("error")) {
                out.add(TerminalText.line(filePath + ": " + file.get("error").asText()));
            }
            return out;
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

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

/** {@code cohort team list|create}: the teams of the lead-service. */
@Command(name = "team", mixinStandardHelpOptions = true, description = "List or create teams.",
        subcommands = {TeamCommand.ListTeams.class, TeamCommand.Create.class})
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
            System.out.println("created team " + t.path("id").asText() + " (permission mode " + t.path("permissionMode").asText()
                    + ", workspace " + t.path("workspace").asText() + ")");
            return 0;
        }
    }
}

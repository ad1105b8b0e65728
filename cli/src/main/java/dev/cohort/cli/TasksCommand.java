package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cohort tasks}: the team's task board as a table. */
@Command(name = "tasks", mixinStandardHelpOptions = true, description = "Show a team's task board.")
public final class TasksCommand extends ApiCommand {

    static final List<String> HEADERS = List.of("ID", "STATUS", "OWNER", "BLOCKED BY", "SUBJECT");

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Option(names = "--status", description = "Only tasks with this status: pending, in_progress, completed.")
    String status;

    @Option(names = "--json", description = "Print the API's JSON instead of a table.")
    boolean json;

    @Override
    int run() throws IOException, InterruptedException {
        JsonNode tasks = lead().get("/api/v1/teams/" + ApiClient.seg(team) + "/tasks"
                + (status == null ? "" : "?status=" + ApiClient.seg(status)));
        if (json) {
            System.out.println(TerminalText.json(tasks));
        } else {
            table(tasks).forEach(System.out::println);
        }
        return 0;
    }

    /**
     * The board: one row per task; "blocked by" lists the unmet dependencies; a bound worktree follows the subject;
     * a line when it is empty.
     */
    static List<String> table(JsonNode tasks) {
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode t : tasks) {
            List<String> blockers = new ArrayList<>();
            t.path("blockers").forEach(b -> blockers.add(b.asText()));
            rows.add(List.of(t.path("id").asText(), t.path("status").asText(), t.path("owner").asText(""),
                    String.join(",", blockers), t.path("subject").asText()
                            + (t.hasNonNull("worktree") ? " [worktree " + t.get("worktree").asText() + "]" : "")));
        }
        List<String> out = new ArrayList<>(Table.render(HEADERS, rows));
        if (rows.isEmpty()) {
            out.add("(no tasks)");
        }
        return out;
    }
}

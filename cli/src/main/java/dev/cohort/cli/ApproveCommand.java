package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cohort approve <id> [--deny] [--reason R]}: answers an approval request; without an id lists the pending ones. */
@Command(name = "approve", mixinStandardHelpOptions = true,
        description = {"Approve (or --deny) a pending approval request of a team.",
            "Without an id: list the pending requests."})
public final class ApproveCommand extends ApiCommand {

    @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "The approval id (a unique prefix is enough).")
    String id;

    @Option(names = "--deny", description = "Deny instead of approving.")
    boolean deny;

    @Option(names = "--reason", paramLabel = "R", description = "Why (the model sees it when denied).")
    String reason;

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Override
    int run() throws IOException, InterruptedException {
        ApiClient api = lead();
        String base = "/api/v1/teams/" + ApiClient.seg(team) + "/approvals";
        if (id == null) {
            JsonNode pending = api.get(base + "?status=pending");
            List<List<String>> rows = new ArrayList<>();
            pending.forEach(a -> rows.add(List.of(a.path("id").asText(), a.path("agent").asText(),
                    a.path("tool").asText() + " " + EventFormatter.argsPreview(a.path("tool").asText(), a.get("args")),
                    a.path("reason").asText(""))));
            Table.render(List.of("ID", "AGENT", "CALL", "REASON"), rows).forEach(System.out::println);
            if (rows.isEmpty()) {
                System.out.println("(no pending approval requests)");
            }
            return 0;
        }
        String full = resolve(api, base, id);
        if (full == null) {
            return REQUEST_FAILED;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("approve", !deny);
        if (reason != null) {
            body.put("reason", reason);
        }
        JsonNode r = api.post(base + "/" + ApiClient.seg(full), body);
        System.out.println(r.path("status").asText(deny ? "denied" : "approved") + ": " + r.path("tool").asText() + " "
                + EventFormatter.argsPreview(r.path("tool").asText(), r.get("args")) + " (" + full + ")");
        return 0;
    }

    /** A full id as given, or the one pending request it is a prefix of (chat shows 8-character prefixes). */
    private String resolve(ApiClient api, String base, String given) throws IOException, InterruptedException {
        if (given.length() >= 36) {
            return given;
        }
        List<String> matches = new ArrayList<>();
        api.get(base).forEach(a -> {
            if (a.path("id").asText().startsWith(given)) {
                matches.add(a.path("id").asText());
            }
        });
        if (matches.size() == 1) {
            return matches.get(0);
        }
        System.err.println(name() + ": " + (matches.isEmpty() ? "no approval request of team \"" + team + "\" starts with \"" + given + "\""
                : "\"" + given + "\" matches " + matches.size() + " requests; give more of the id"));
        return null;
    }
}

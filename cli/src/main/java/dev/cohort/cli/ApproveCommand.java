package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Ids;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cohort approve <id> [--deny] [--reason R] [--show]}: answers an approval request, or shows its whole call;
 * without an id lists the pending ones. What agents wrote (calls, reasons, names) is printed neutralised
 * ({@link TerminalText}), and a call is never cut silently: whole up to {@value ChatCommand#QUESTION_MAX} characters,
 * then how many more there are and {@code --show}.
 */
@Command(name = "approve", mixinStandardHelpOptions = true,
        description = {"Approve (or --deny) a pending approval request of a team.",
            "Without an id: list the pending requests. With --show: print the request's whole call, answer nothing."})
public final class ApproveCommand extends ApiCommand {

    @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "The approval id (a unique prefix is enough).")
    String id;

    @Option(names = "--deny", description = "Deny instead of approving.")
    boolean deny;

    @Option(names = "--reason", paramLabel = "R", description = "Why (the model sees it when denied).")
    String reason;

    @Option(names = "--show", description = "Print the whole call of the request (every line), without answering it.")
    boolean show;

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Override
    int run() throws IOException, InterruptedException {
        ApiClient api = lead();
        String base = "/api/v1/teams/" + ApiClient.seg(team) + "/approvals";
        if (id == null) {
            if (show) {
                System.err.println(name() + ": --show needs the id of a request (`" + name() + "` lists them)");
                return REQUEST_FAILED;
            }
            listing(api.get(base + "?status=pending")).forEach(System.out::println);
            return 0;
        }
        String full = resolve(api, base, id);
        if (full == null) {
            return REQUEST_FAILED;
        }
        if (show) {
            if (deny || reason != null) {
                System.err.println(name() + ": --show answers nothing; leave out --deny and --reason");
                return REQUEST_FAILED;
            }
            for (JsonNode a : api.get(base)) {
                if (a.path("id").asText().equals(full)) {
                    shown(a).forEach(System.out::println);
                    return 0;
                }
            }
            System.err.println(name() + ": no approval request of team \"" + TerminalText.line(team) + "\" has the id \""
                    + TerminalText.line(full) + "\"");
            return REQUEST_FAILED;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("approve", !deny);
        if (reason != null) {
            body.put("reason", reason);
        }
        JsonNode r = api.post(base + "/" + ApiClient.seg(full), body);
        System.out.println(TerminalText.line(r.path("status").asText(deny ? "denied" : "approved") + ": "
                + r.path("tool").asText()) + " " + EventFormatter.argsPreview(r.path("tool").asText(), r.get("args"))
                + " (" + TerminalText.line(full) + ")");
        return 0;
    }

    /**
     * The pending requests as a table whose last column is the call: whole (never cut at the table's cell width), or
     * its first {@value ChatCommand#QUESTION_MAX} characters then {@code (… N more characters, cohort approve <id>
     * --show)}; a hint says how to answer and how to see a call whole.
     */
    static List<String> listing(JsonNode pending) {
        List<List<String>> rows = new ArrayList<>();
        pending.forEach(a -> rows.add(List.of(a.path("id").asText(), a.path("agent").asText(), a.path("reason").asText(""),
                call(a))));
        List<String> out = new ArrayList<>(Table.render(List.of("ID", "AGENT", "REASON", "CALL"), rows, false));
        out.add(rows.isEmpty() ? "(no pending approval requests)"
                : "answer with `cohort approve <id> [--deny] [--reason R]`; `cohort approve <id> --show` prints a call whole");
        return out;
    }

    /** {@code bash rm -r build}: the tool and its whole call on one line, bounded like a question of the chat. */
    private static String call(JsonNode a) {
        String tool = a.path("tool").asText();
        TerminalText.Bounded call = TerminalText.bounded(EventFormatter.approvalCall(tool, a.get("args")), ChatCommand.QUESTION_MAX);
        return TerminalText.line(tool) + (call.head().isEmpty() ? "" : " " + call.head())
                + (call.more() == 0 ? "" : " (" + TerminalText.more(call.more(), "cohort approve "
                        + EventFormatter.shortId(a.path("id").asText()) + " --show") + ")");
    }

    /** What {@code --show} prints for one request (as the chat's {@code /show}): header, then each line of the call. */
    static List<String> shown(JsonNode a) {
        String tool = a.path("tool").asText();
        return ChatCommand.shown(Style.PLAIN, new ChatCommand.Pending(a.path("id").asText(), a.path("agent").asText(Ids.LEAD),
                tool, EventFormatter.approvalCall(tool, a.get("args"))));
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

package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a person reads before answering an approval request: `cohort approve`, its `--show`, and the chat's `/show`. */
class ApproveCommandTest {

    private static final String REWRITE = "rm -rf ~\r\u001b[2KApprove bash: ls? [y/N]";

    /** A pending request as {@code GET …/approvals} lists it. */
    private static ObjectNode request(ArrayNode into, String id, String agent, String tool, String reason) {
        ObjectNode a = into.addObject().put("id", id).put("agent", agent).put("tool", tool).put("status", "pending");
        if (reason != null) {
            a.put("reason", reason);
        }
        return a.putObject("args");
    }

    @Test
    void theListingShowsEachCallWholeAndNeutralisedInTheLastColumn() {
        ArrayNode pending = Json.MAPPER.createArrayNode();
        String cmd = "find . -name '*.tmp' -delete && " + "echo cleaning-up ".repeat(10) + "&& " + REWRITE;
        request(pending, "a1b2c3d4e5", "lead", "bash", "deletes\nfiles").put("command", cmd);
        request(pending, "f6e5d4c3b2", "alice", "write_file", null).put("path", "/tmp/x").put("content", "a\nb");

        List<String> out = ApproveCommand.listing(pending);
        assertThat(out).containsExactly(
                "ID          AGENT  REASON         CALL",
                "a1b2c3d4e5  lead   deletes files  bash " + cmd.replace("\r", "^M").replace("\u001b", "^["),
                "f6e5d4c3b2  alice                 write_file /tmp/x {\"content\":\"a\\nb\"}",
                "answer with `cohort approve <id> [--deny] [--reason R]`; `cohort approve <id> --show` prints a call whole");
        assertThat(String.join("\n", out)).doesNotContain("\r", "\u001b");
        assertThat(ApproveCommand.listing(Json.MAPPER.createArrayNode()))
                .containsExactly("ID  AGENT  REASON  CALL", "(no pending approval requests)");
    }

    @Test
    void aCallLongerThanTheQuestionsLimitSaysHowManyCharactersAreLeftAndHowToSeeThem() {
        ArrayNode pending = Json.MAPPER.createArrayNode();
        request(pending, "0123456789abcdef", "lead", "bash", null).put("command", "x".repeat(ChatCommand.QUESTION_MAX + 500));
        assertThat(ApproveCommand.listing(pending).get(1)).isEqualTo("0123456789abcdef  lead           bash "
                + "x".repeat(ChatCommand.QUESTION_MAX) + " (… 500 more characters, cohort approve 01234567 --show)");
    }

    @Test
    void showPrintsEveryLineOfTheCallBehindAMarginWithItsControlsVisible() {
        ArrayNode pending = Json.MAPPER.createArrayNode();
        request(pending, "f6e5d4c3b2", "alice", "bash", null).put("command", "set -e\nmake\r\u001b[2Kdone\u009b\u202e").put("timeout", 5);
        JsonNode a = pending.get(0);
        List<String> shown = ApproveCommand.shown(a);
        assertThat(shown).containsExactly(
                "[alice] approval f6e5d4c3b2: bash (36 characters)",
                "  │ set -e",
                "  │ make^M^[[2Kdone<U+009B><U+202E> {\"timeout\":5}");
        // the chat's /show prints the same
        assertThat(ChatCommand.shown(Style.PLAIN, new ChatCommand.Pending("f6e5d4c3b2", "alice", "bash",
                EventFormatter.approvalCall("bash", a.get("args"))))).isEqualTo(shown);
    }

    @Test
    void theApprovedCallIsTheWholeCallNotAPreview() {
        String cmd = "echo " + "y".repeat(300) + "\nrm -rf build";
        ObjectNode args = Json.MAPPER.createObjectNode().put("command", cmd);
        assertThat(EventFormatter.approvalCall("bash", args)).isEqualTo(cmd);
        assertThat(EventFormatter.approvalCall("bash", Json.MAPPER.getNodeFactory().textNode(Json.write(args)))).isEqualTo(cmd);
        assertThat(EventFormatter.approvalCall("mystery", Json.MAPPER.createObjectNode().put("a", 1))).isEqualTo("{\"a\":1}");
        assertThat(EventFormatter.approvalCall("bash", Json.MAPPER.getNodeFactory().textNode("{\"command\":\"cut sh"))).isEqualTo("{\"command\":\"cut sh");
        assertThat(EventFormatter.approvalCall("list_tasks", Json.MAPPER.createObjectNode())).isEmpty();
        assertThat(EventFormatter.approvalCall("bash", null)).isEmpty();
    }
}

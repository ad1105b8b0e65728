package dev.cohort.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the many-teams benchmark's model reads where an agent's bench turn stands from the conversation it is sent. */
class ManyTeamsTurnTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode body(Object... roleAndContent) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode msgs = body.putArray("messages");
        for (int i = 0; i < roleAndContent.length; i += 2) {
            ObjectNode m = msgs.addObject().put("role", (String) roleAndContent[i]);
            Object c = roleAndContent[i + 1];
            if (c instanceof String s) {
                m.put("content", s);
            } else {
                m.set("tool_calls", (JsonNode) c);
            }
        }
        return body;
    }

    private static JsonNode calls(String... names) {
        ArrayNode a = JSON.createArrayNode();
        for (String n : names) {
            a.addObject().putObject("function").put("name", n);
        }
        return a;
    }

    @Test
    void aTeamsFirstBatchStartsUndelegatedAndCountsBashCallsAfterItsMarker() {
        ManyTeamsBenchmark.Turn t = ManyTeamsBenchmark.Turn.of(body("system", "you are the lead",
                "user", "bench turn t1x01 #f1#first"), ManyTeamsBenchmark.LEAD_MARKER);
        assertThat(t).isEqualTo(new ManyTeamsBenchmark.Turn("f1", true, false, 0));

        t = ManyTeamsBenchmark.Turn.of(body("user", "bench turn t1x01 #f1#first", "assistant", calls("spawn_teammate", "spawn_teammate"),
                "tool", "spawned", "assistant", calls("bash"), "tool", "ok", "user", "<message from ann>DONE",
                "assistant", calls("bash")), ManyTeamsBenchmark.LEAD_MARKER);
        assertThat(t).isEqualTo(new ManyTeamsBenchmark.Turn("f1", true, true, 2));
    }

    @Test
    void theLastMarkerCountsSoALaterBatchStartsAfreshAndMessagingIsDelegating() {
        ManyTeamsBenchmark.Turn t = ManyTeamsBenchmark.Turn.of(body("user", "bench turn t1x01 #f1#first",
                "assistant", calls("bash"), "assistant", "DONE", "user", "bench turn t1x01 #m1#",
                "assistant", calls("send_message", "send_message")), ManyTeamsBenchmark.LEAD_MARKER);
        assertThat(t).isEqualTo(new ManyTeamsBenchmark.Turn("m1", false, true, 0));
    }

    @Test
    void anEndedTurnMemoryWorkAndAConversationWithoutTheMarkerAreNoBenchTurn() {
        assertThat(ManyTeamsBenchmark.Turn.of(body("user", "bench work t1x01/ann #m1#", "assistant", calls("bash"),
                "assistant", "DONE", "user", "<message from lead>thanks"), ManyTeamsBenchmark.MATE_MARKER)).isNull();
        assertThat(ManyTeamsBenchmark.Turn.of(body("system", "You extract memories from a conversation",
                "user", "bench work t1x01/ann #m1#"), ManyTeamsBenchmark.MATE_MARKER)).isNull();
        assertThat(ManyTeamsBenchmark.Turn.of(body("user", "hello"), ManyTeamsBenchmark.MATE_MARKER)).isNull();
        assertThat(ManyTeamsBenchmark.Turn.of(body("user", "bench work without a batch"), ManyTeamsBenchmark.MATE_MARKER)).isNull();
    }

    @Test
    void aTeammatesWorkArrivesInsideAMessageAndCountsFromThere() {
        ManyTeamsBenchmark.Turn t = ManyTeamsBenchmark.Turn.of(body("user", "<message from lead>bench work t9x03/bob #m9#",
                "assistant", calls("bash"), "tool", "", "assistant", calls("bash"), "tool", ""), ManyTeamsBenchmark.MATE_MARKER);
        assertThat(t).isEqualTo(new ManyTeamsBenchmark.Turn("m9", false, false, 2));
    }

    @Test
    void percentilesAreNearestRank() {
        List<Double> xs = List.of(5.0, 1.0, 3.0, 2.0, 4.0);
        assertThat(ManyTeamsBenchmark.pct(xs, 50)).isEqualTo(3.0);
        assertThat(ManyTeamsBenchmark.pct(xs, 99)).isEqualTo(5.0);
        assertThat(ManyTeamsBenchmark.pct(xs, 100)).isEqualTo(5.0);
        assertThat(ManyTeamsBenchmark.pct(List.of(), 50)).isNaN();
    }
}

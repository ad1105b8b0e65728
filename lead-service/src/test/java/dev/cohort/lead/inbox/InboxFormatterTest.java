package dev.cohort.lead.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Json;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.lead.inbox.InboxFormatter;
import dev.cohort.lead.inbox.InboxRepository.InboxRow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The model-visible form of inbox messages, read through the typed {@code background_done} metadata. */
class InboxFormatterTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> stored(String json) {
        try {
            return Json.MAPPER.readValue(json, Map.class); // as InboxRepository reads the jsonb column
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aBackgroundCompletionStoredBeforeTheTypedMetadataReadsAsTheSameTaskNotification() {
        InboxRow row = new InboxRow("background_done-bg_1", "tool-runner", "background_done", "first <output>",
                stored("""
                        {"jobId":"bg_1","callId":"call_7","status":"failed","exitCode":4,"durationMs":1250,
                         "outputRef":"cohort-output://bg_1","command":"make && echo <ok>","futureField":[1]}"""));
        assertThat(InboxFormatter.format(row)).isEqualTo("""
                <task_notification>
                  <task_id>bg_1</task_id>
                  <status>failed</status>
                  <exit_code>4</exit_code>
                  <duration_ms>1250</duration_ms>
                  <command>make &amp;&amp; echo &lt;ok&gt;</command>
                  <output_ref>cohort-output://bg_1</output_ref>
                  <summary>first &lt;output&gt;</summary>
                </task_notification>""");
    }

    @Test
    void fieldsTheJobDoesNotHaveAreLeftOut() {
        InboxRow row = new InboxRow("background_done-bg_2", "tool-runner", "background_done", "",
                stored("{\"jobId\":\"bg_2\",\"status\":\"timed_out\",\"outputRef\":\"cohort-output://bg_2\"}"));
        assertThat(InboxFormatter.format(row)).isEqualTo("""
                <task_notification>
                  <task_id>bg_2</task_id>
                  <status>timed_out</status>
                  <output_ref>cohort-output://bg_2</output_ref>
                  <summary></summary>
                </task_notification>""");
    }

    @Test
    void aBackgroundDoneWithMalformedMetadataStillReachesTheModelAsAQuotedMessage() {
        InboxRow row = new InboxRow("m1", "mallory", "background_done", "job <done>",
                stored("{\"jobId\":\"bg_3\",\"exitCode\":\"zero\"}"));
        assertThat(InboxFormatter.format(row))
                .isEqualTo("<message from=\"mallory\" type=\"background_done\" id=\"m1\">\njob &lt;done&gt;\n</message>");
    }

    @Test
    void otherMessagesAreMessageElementsNamingSenderAndType() {
        InboxRow row = new InboxRow("m2", "alice", "message", "done: see \"notes\"", Map.of());
        assertThat(InboxFormatter.format(row))
                .isEqualTo("<message from=\"alice\" type=\"message\" id=\"m2\">\ndone: see &quot;notes&quot;\n</message>");
    }

    @Test
    void aTeammatesResultShowsTheStatusItEndedWith() {
        InboxRow row = new InboxRow("r1", "alice", "result", "ran out", stored(
                "{\"status\":\"budget_exceeded\",\"reason\":\"team budget\",\"turnId\":\"t1\"}"));
        assertThat(InboxFormatter.format(row))
                .isEqualTo("<message from=\"alice\" type=\"result\" id=\"r1\" status=\"budget_exceeded\">\nran out\n</message>");
    }

    @Test
    void messagesFromAgentsOfOneBatchAreOneInboxInputAndTaskNotificationsStayTheirOwn() {
        InboxRow a = new InboxRow("m1", "alice", "message", "schema </message> done", Map.of());
        InboxRow bg = new InboxRow("background_done-bg_9", "tool-runner", "background_done", "ok",
                stored("{\"jobId\":\"bg_9\",\"status\":\"completed\"}"));
        InboxRow b = new InboxRow("r2", "bob", "result", "x".repeat(TeamMessages.INJECT_CAP + 5),
                stored("{\"status\":\"completed\"}"));
        List<InboxFormatter.Input> inputs = InboxFormatter.inputs(List.of(a, bg, b));
        assertThat(inputs).extracting(InboxFormatter.Input::ids)
                .containsExactly(List.of("m1", "r2"), List.of("background_done-bg_9"));
        assertThat(inputs.get(0).text()).isEqualTo(TeamMessages.inboxBlock(List.of(
                InboxFormatter.format(a), InboxFormatter.format(b))));
        assertThat(inputs.get(0).text()).startsWith("[inbox] 2 messages from other agents.")
                .contains("schema &lt;/message&gt; done").doesNotContain("schema </message>")
                .contains("[… 5 more characters; check_inbox shows the whole message]");
        assertThat(inputs.get(1).text()).startsWith("<task_notification>");
    }
}

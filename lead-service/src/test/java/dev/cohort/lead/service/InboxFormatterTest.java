package dev.cohort.lead.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Json;
import dev.cohort.lead.persistence.InboxRepository.InboxRow;
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
                .isEqualTo("<message from=\"mallory\" type=\"background_done\">\njob &lt;done&gt;\n</message>");
    }

    @Test
    void otherMessagesAreMessageElementsNamingSenderAndType() {
        InboxRow row = new InboxRow("m2", "alice", "message", "done: see \"notes\"", Map.of());
        assertThat(InboxFormatter.format(row))
                .isEqualTo("<message from=\"alice\" type=\"message\">\ndone: see &quot;notes&quot;\n</message>");
    }
}

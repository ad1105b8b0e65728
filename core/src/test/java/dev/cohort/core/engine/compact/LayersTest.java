package dev.cohort.core.engine.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.CompactionSettings;
import dev.cohort.core.engine.Conversation;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The local layers as pure functions. */
class LayersTest {
    final Map<String, String> stored = new HashMap<>();
    final Layers.Store store = new Layers.Store() {
        @Override
        public String toolResult(Message m) {
            String n = "tool-result-" + m.toolCallId() + "-" + stored.size();
            stored.put(n, m.content());
            return n;
        }

        @Override
        public String transcript(List<Message> c) {
            String n = "transcript-" + stored.size();
            stored.put(n, String.valueOf(c.size()));
            return n;
        }
    };
    final CompactionSettings s = CompactionSettings.defaults();

    static List<Message> call(String id, String result) {
        return List.of(Message.assistant(null, List.of(new ModelToolCall(id, "bash", "{}"))),
                Message.tool(id, "bash", result, false));
    }

    @Test
    void l0StoresAnOversizedResultOnceAndNeverWrapsItsPreviewAgain() {
        String big = "line\n".repeat(10_000) + "ERROR at the end";
        List<Message> conv = new ArrayList<>(List.of(Message.user("go")));
        conv.addAll(call("c1", big));

        Layers.Result r = Layers.persistOversized(conv, s, store);

        assertThat(r.changed()).isEqualTo(1);
        String preview = r.messages().get(2).content();
        assertThat(preview).startsWith("<persisted-output ref=\"tool-result-c1-0\" chars=\"50016\">")
                .contains("ERROR at the end").hasSizeLessThan(3000);
        assertThat(stored).containsEntry("tool-result-c1-0", big);
        assertThat(Layers.persistOversized(r.messages(), s, store).changed()).isZero();
    }

    @Test
    void l1SnipsTheMiddleKeepingTheRequestAndCallResultPairs() {
        List<Message> conv = new ArrayList<>(List.of(Message.user("first task")));
        for (int i = 0; i < 200; i++) {
            conv.addAll(call("a" + i, "out" + i));
        }
        conv.add(Message.user("the latest request"));
        for (int i = 0; i < 400; i++) {
            conv.addAll(call("b" + i, "out" + i));
        }

        Layers.Result r = Layers.snip(conv, s, "the latest request", store);

        assertThat(r.isChanged()).isTrue();
        assertThat(r.messages().get(0).content()).isEqualTo("first task");
        assertThat(r.messages()).extracting(Message::content).contains("the latest request");
        assertThat(r.messages().get(s.snipKeepHead() + 1).content()).contains("snipped").contains(r.transcript());
        assertThat(Conversation.repair(r.messages())).isSameAs(r.messages()); // nothing orphaned
        assertThat(r.messages().size()).isLessThanOrEqualTo(s.snipKeepHead() + s.snipKeepTail() + 3);
    }

    @Test
    void l2KeepsTheStoredReferenceOfAPersistedResultAndSkipsRecentOnes() {
        List<Message> conv = new ArrayList<>(List.of(Message.user("go")));
        conv.addAll(call("old", Layers.preview("z".repeat(40_000), "tool-result-old-9", 2000)));
        conv.addAll(call("mid", "m".repeat(5000)));
        for (int i = 0; i < 3; i++) {
            conv.addAll(call("new" + i, "n".repeat(5000)));
        }

        Layers.Result r = Layers.microCompact(conv, s, store);

        assertThat(r.changed()).isEqualTo(2);
        assertThat(r.messages().get(2).content()).startsWith("<elided-tool-result ref=\"tool-result-old-9\">");
        assertThat(Layers.refOf(r.messages().get(4).content())).isEqualTo("tool-result-mid-0");
        assertThat(stored).containsEntry("tool-result-mid-0", "m".repeat(5000));
        assertThat(r.messages().subList(5, 11)).extracting(Message::content)
                .filteredOn(c -> c != null && c.startsWith("n")).hasSize(3);
    }

    @Test
    void summaryInputKeepsTheMostRecentContent() {
        List<Message> conv = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            conv.add(Message.user("message number " + i + " " + "pad ".repeat(100)));
        }
        String in = Summary.input(conv, 1000, "the bug", null);
        assertThat(in).startsWith("Focus the summary on: the bug").contains("message number 99")
                .doesNotContain("message number 0 ");
    }
}

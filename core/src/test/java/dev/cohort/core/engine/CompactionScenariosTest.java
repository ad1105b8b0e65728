package dev.cohort.core.engine;

import dev.cohort.core.testing.ScriptedModelTestBase;
import static dev.cohort.core.engine.EngineHarness.messages;
import static dev.cohort.core.engine.EngineHarness.toolResults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.engine.compact.Layers;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.compact.CompactTool;
import dev.cohort.devstack.model.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction in the loop, against the scripted model over HTTP. */
class CompactionScenariosTest extends ScriptedModelTestBase {
    @TempDir
    Path dir;
    EngineHarness.Events events;
    /** Transcript writes, with the number of model requests already made at that moment. */
    final List<Map.Entry<Integer, String>> writes = new ArrayList<>();
    final InMemoryTranscriptStore inner = new InMemoryTranscriptStore();
    final TranscriptStore store = new TranscriptStore() {
        @Override
        public String write(String agentId, String name, String content) {
            writes.add(Map.entry(model.requests().size(), name));
            return inner.write(agentId, name, content);
        }

        @Override
        public Optional<String> read(String agentId, String name) {
            return inner.read(agentId, name);
        }
    };

    @BeforeEach
    void setUp() {
        events = new EngineHarness.Events();
    }

    AgentSession lead(CompactionSettings cs) {
        AgentEngine engine = EngineHarness.engine(EngineHarness.modelClient(model), events, List.of(), new CompactTool())
                .settings(EngineSettings.defaults().withMaxOutputTokens(1000).withCompaction(cs))
                .transcripts(store).sleeper(d -> { }).build();
        return engine.open(AgentContext.of("default", "lead", AgentRole.LEAD, new LocalWorkspace(dir)), null);
    }

    static CompactionSettings window(int contextWindow, int keepRecentTurns) {
        CompactionSettings d = CompactionSettings.defaults();
        return new CompactionSettings(new CompactionSettings.ModelLimits(contextWindow, 1000), Map.of(),
                d.autoCompactRatio(), d.microCompactRatio(), d.maxToolResultTokens(), d.previewChars(),
                d.snipMaxMessages(), d.snipKeepHead(), d.snipKeepTail(), keepRecentTurns, d.microCompactMinTokens(),
                d.summaryInputRatio(), d.summaryTailRatio(), d.summaryMaxTokens());
    }

    @Test
    void oldSeenResultsAreShortenedWithTheirReferenceButUnseenParallelResultsNever() throws Exception {
        Files.writeString(dir.resolve("x.txt"), "x".repeat(6000));
        for (String f : List.of("a", "b", "c")) {
            Files.writeString(dir.resolve(f + ".txt"), f.repeat(6000));
        }
        model.load("""
                {"rules":[
                 {"match":{"call":1},"reply":{"toolCalls":[{"id":"rx","name":"read_file","arguments":{"path":"x.txt"}}]}},
                 {"match":{"call":2},"reply":{"toolCalls":[
                   {"id":"ra","name":"read_file","arguments":{"path":"a.txt"}},
                   {"id":"rb","name":"read_file","arguments":{"path":"b.txt"}},
                   {"id":"rc","name":"read_file","arguments":{"path":"c.txt"}}]}},
                 {"reply":{"text":"read them all"}}]}""");

        TurnResult r = lead(window(14000, 1)).run("read x, then a, b and c");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        List<String> results = toolResults(model.requests().get(2));
        assertThat(results).hasSize(4);
        assertThat(results.get(0)).startsWith(Layers.ELIDED + " ref=\"tool-result-rx-");
                assertThat(results.get(1)).contains("a".repeat(6000));
        assertThat(results.get(2)).contains("b".repeat(6000));
        assertThat(results.get(3)).contains("c".repeat(6000));
        String ref = Layers.refOf(results.get(0));
        assertThat(inner.read("default/lead", ref)).get().asString().contains("x".repeat(6000));
        assertThat(events.of(EventType.COMPACTED)).extracting(e -> e.data().path("layer").asText()).containsExactly("L2");
    }

    @Test
    void theSummaryKeepsTheLatestRequestAndTheTranscriptIsWrittenBeforeTheSummaryIsRequested() throws Exception {
        Files.writeString(dir.resolve("big.txt"), "old line\n".repeat(1000) + "THE NEWEST LINE");
        model.load("""
                {"rules":[
                 {"match":{"system":"summarise a coding agent"},"reply":{"text":"SUMMARY: big.txt was read"}},
                 {"match":{"call":1},"reply":{"toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"big.txt"}}]}},
                 {"reply":{"text":"done"}}]}""");
        AgentSession lead = lead(window(6000, 3));

        TurnResult r = lead.run("refactor the parser in big.txt");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        List<RecordedRequest> req = model.requests();
        assertThat(req).hasSize(3);
        RecordedRequest summary = req.get(1);
        assertThat(EngineHarness.system(summary)).contains("summarise a coding agent");
        assertThat(EngineHarness.lastContent(summary)).contains("THE NEWEST LINE")
                .contains("The user's latest request (keep it verbatim): refactor the parser in big.txt");
        // the transcript was stored when only the first request had been made, i.e. before the summary request
        assertThat(writes).filteredOn(w -> w.getValue().startsWith("transcript-")).singleElement()
                .satisfies(w -> assertThat(w.getKey()).isEqualTo(1));
        String transcript = writes.stream().map(Map.Entry::getValue).filter(n -> n.startsWith("transcript-"))
                .findFirst().orElseThrow();
        assertThat(inner.read("default/lead", transcript)).get().asString().contains("THE NEWEST LINE");
        List<String> after = messages(req.get(2)).stream().map(m -> m.path("content").asText()).toList();
        assertThat(after).anySatisfy(c -> assertThat(c).contains("SUMMARY: big.txt was read").contains(transcript))
                .contains("refactor the parser in big.txt");
        assertThat(lead.snapshot().messages()).extracting(Message::content)
                .contains("refactor the parser in big.txt");
    }

    @Test
    void theCompactToolPassesItsFocusToTheSummariserAndEveryCallKeepsItsResult() {
        model.load("""
                {"rules":[
                 {"match":{"system":"summarise a coding agent"},"reply":{"text":"SUMMARY"}},
                 {"match":{"call":1},"reply":{"toolCalls":[
                   {"id":"k1","name":"compact","arguments":{"focus":"the parser bug"}},
                   {"id":"g1","name":"glob","arguments":{"pattern":"*"}}]}},
                 {"reply":{"text":"done"}}]}""");

        TurnResult r = lead(CompactionSettings.defaults()).run("fix the parser");

        assertThat(r.reason()).isEqualTo(StopReason.COMPLETED);
        List<RecordedRequest> req = model.requests();
        assertThat(req).hasSize(3);
        assertThat(EngineHarness.lastContent(req.get(1))).startsWith("Focus the summary on: the parser bug");
        assertThat(toolResults(req.get(2))).hasSize(2); // compact's own result and glob's
        assertThat(events.of(EventType.COMPACTED)).singleElement().satisfies(e -> {
            assertThat(e.data().path("reason").asText()).isEqualTo("manual");
            assertThat(e.data().path("focus").asText()).isEqualTo("the parser bug");
        });
    }
}

package dev.cohort.core.engine.bench;

import dev.cohort.core.engine.CompactionSettings;
import dev.cohort.core.engine.InMemoryTranscriptStore;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.compact.Layers;
import dev.cohort.core.engine.compact.Tokens;
import dev.cohort.core.engine.compact.Transcripts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * One pass of the local compaction layers L0–L2 over a synthetic 200,000-token conversation (target: ≤ 5 ms).
 * The conversation: a task, then rounds of an assistant tool call and its result (~340 tokens each), every 40th result
 * oversized (~10k tokens, so L0 stores it), ~800 messages (so L1 snips). The store keeps texts in memory and the
 * transcript is serialised with Jackson exactly as the engine does. Run:
 * <pre>
 * java -cp "$(cat core/target/cp.txt):core/target/classes:core/target/test-classes" \
 *      dev.cohort.core.engine.bench.CompactionBenchmark [iterations=200]
 * </pre>
 */
public final class CompactionBenchmark {
    private CompactionBenchmark() {
    }

    public static void main(String[] args) {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        List<Message> conv = conversation(200_000);
        System.out.printf("conversation: %d messages, %d estimated tokens, %d characters%n", conv.size(),
                Tokens.of(conv, 0, conv.size()), conv.stream().mapToLong(m -> m.content() == null ? 0
                        : m.content().length()).sum());
        CompactionSettings s = CompactionSettings.defaults();
        long[] ns = new long[iterations];
        int[] after = new int[1];
        long[] l0 = new long[iterations];
        long[] l1 = new long[iterations];
        long[] l2 = new long[iterations];
        for (int i = -50; i < iterations; i++) { // 50 warm-up passes
            InMemoryTranscriptStore ts = new InMemoryTranscriptStore();
            Layers.Store store = new Layers.Store() {
                @Override
                public String toolResult(Message m) {
                    return ts.write("bench/lead", "tool-result-" + m.toolCallId() + "-" + UUID.randomUUID() + ".txt",
                            m.content());
                }

                @Override
                public String transcript(List<Message> c) {
                    return ts.write("bench/lead", "transcript-" + UUID.randomUUID() + ".jsonl", Transcripts.jsonl(c));
                }
            };
            long t0 = System.nanoTime();
            List<Message> c = Layers.persistOversized(conv, s, store).messages();
            long t1 = System.nanoTime();
            c = Layers.snip(c, s, "the task", store).messages();
            long t2 = System.nanoTime();
            c = Layers.microCompact(c, s, store).messages();
            long t3 = System.nanoTime();
            long t = t3 - t0;
            if (i >= 0) {
                ns[i] = t;
                l0[i] = t1 - t0;
                l1[i] = t2 - t1;
                l2[i] = t3 - t2;
                after[0] = (int) Tokens.of(c, 0, c.size());
            }
        }
        Arrays.sort(ns);
        Arrays.sort(l0);
        Arrays.sort(l1);
        Arrays.sort(l2);
        System.out.printf("p50 per layer: L0 %.2f ms, L1 %.2f ms, L2 %.2f ms%n", l0[iterations / 2] / 1e6,
                l1[iterations / 2] / 1e6, l2[iterations / 2] / 1e6);
        System.out.printf("L0-L2 pass: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d passes; %d tokens after%n",
                ns[iterations / 2] / 1e6, ns[(int) (iterations * 0.99)] / 1e6, ns[iterations - 1] / 1e6, iterations,
                after[0]);
    }

    static List<Message> conversation(long targetTokens) {
        List<Message> conv = new ArrayList<>();
        conv.add(Message.user("the task"));
        String line = "src/main/java/dev/cohort/Example.java:42: some representative line of tool output text\n";
        String normal = line.repeat(15); // ~1350 chars ≈ 340 tokens
        String huge = line.repeat(450); // ~40k chars ≈ 10k tokens
        long tokens = 0;
        for (int i = 0; tokens < targetTokens; i++) {
            String id = "call_" + i;
            Message a = Message.assistant(i % 10 == 0 ? "Looking at the next file." : null,
                    List.of(new ModelToolCall(id, "read_file", "{\"path\":\"src/F" + i + ".java\"}")));
            Message t = Message.tool(id, "read_file", i % 40 == 39 ? huge : normal, false);
            conv.add(a);
            conv.add(t);
            tokens += Tokens.of(a) + Tokens.of(t);
        }
        return conv;
    }
}

package dev.cohort.core.engine.bench;

import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.EngineSettings;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.ModelToolCall;
import dev.cohort.core.engine.StateStore;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Engine overhead per model round: a zero-latency in-process model that always calls one in-process no-op tool, so
 * every nanosecond measured is the engine's (validation, permission gate, hooks, prompt assembly, repair, event
 * and state snapshots). Not a unit test; build the classpath as core/README.md's Benchmark section shows
 * ({@code ./mvnw -B -o -q -pl core -am test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * -Dmdep.includeScope=test}), then, with a JDK >= 21:
 * {@code java -cp "$(cat core/target/cp.txt):core/target/classes:core/target/test-classes" dev.cohort.core.engine.bench.EngineBenchmark}.
 * Arguments: rounds (default 100000), rounds per turn (default 20).
 */
public final class EngineBenchmark {
    private EngineBenchmark() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int perTurn = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Tool noop = new Tool() {
            private final ToolSpecification spec = ToolSchemas.spec("noop", "does nothing",
                    ToolSchemas.object().addProperty("n", ToolSchemas.integer("a number")).required("n").build());

            public String name() {
                return "noop";
            }

            public ToolSpecification spec() {
                return spec;
            }

            public boolean isMutating() {
                return false;
            }

            public ToolResult execute(ToolCall call, ToolContext ctx) {
                return ToolResult.ok("ok");
            }
        };
        long[] last = {0};
        long[] samples = new long[rounds + 1000];
        int[] idx = {0};
        int[] inTurn = {0};
        ModelClient model = req -> {
            long now = System.nanoTime();
            if (last[0] != 0 && idx[0] < samples.length) {
                samples[idx[0]++] = now - last[0];
            }
            ModelClient.Reply r = ++inTurn[0] >= perTurn
                    ? new ModelClient.Reply("done", List.of(), "stop", 100, 10, null)
                    : new ModelClient.Reply(null, List.of(new ModelToolCall("c" + inTurn[0], "noop",
                            "{\"n\":" + inTurn[0] + "}")), "tool_calls", 100, 10, null);
            last[0] = System.nanoTime();
            return r;
        };
        AgentEngine engine = AgentEngine.builder().model(model).tools(ToolRegistry.of(noop)).bundledSkills(List.of())
                .settings(EngineSettings.defaults().withMaxModelCallsPerTurn(perTurn + 5)).build();
        StateStore store = step -> {
            // a host would serialise and write; the snapshot value itself is built on every step
        };
        AgentSession session = engine.open(AgentContext.of("bench", "lead", AgentRole.LEAD,
                (tool, id, a, t) -> ToolOutcome.ok("")).withAllowlist(Set.of("noop")).withStore(store), null);

        // warm-up, then measure; each turn starts a fresh session so the conversation stays at perTurn rounds
        run(engine, session, rounds / 4, perTurn, inTurn, last);
        idx[0] = 0;
        long t0 = System.nanoTime();
        int done = run(engine, session, rounds, perTurn, inTurn, last);
        long total = System.nanoTime() - t0;
        long[] s = Arrays.copyOf(samples, idx[0]);
        Arrays.sort(s);
        System.out.printf("rounds=%d (turns of %d rounds) samples=%d%n", done, perTurn, s.length);
        System.out.printf("engine overhead per round: p50=%.1f us  p99=%.1f us  max=%.1f us%n", s[s.length / 2] / 1e3,
                s[(int) (s.length * 0.99)] / 1e3, s[s.length - 1] / 1e3);
        System.out.printf("throughput: %.0f rounds/s on one thread%n", done / (total / 1e9));
    }

    private static int run(AgentEngine engine, AgentSession ignored, int rounds, int perTurn, int[] inTurn, long[] last) {
        int done = 0;
        while (done < rounds) {
            AgentSession s = engine.open(AgentContext.of("bench", "lead", AgentRole.LEAD,
                    (tool, id, a, t) -> ToolOutcome.ok("")).withAllowlist(Set.of("noop")).withStore(step -> {
                    }), null);
            inTurn[0] = 0;
            last[0] = 0;
            TurnResult r = s.run("benchmark turn");
            done += r.modelCalls();
        }
        return done;
    }
}

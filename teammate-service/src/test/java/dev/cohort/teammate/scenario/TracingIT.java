package dev.cohort.teammate.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.model.RecordedRequest;
import dev.cohort.devstack.otel.OtlpCollector;
import dev.cohort.devstack.otel.OtlpCollector.SpanRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tracing, end to end with real processes (tool runner, lead-service, one teammate-service replica) exporting
 * over real OTLP/HTTP to devstack's {@link OtlpCollector}: one trace from the HTTP prompt through the lead's turn, its
 * model call and its {@code spawn_teammate} call, the Kafka hop to the teammate, the teammate's turn, its {@code bash}
 * call to the tool runner and the process it runs, whose {@code TRACEPARENT} names the process span. The parent chain
 * from the teammate's process span up to the lead's HTTP request is unbroken, across the three services; the
 * teammate's result travels back to the lead's inbox in the same trace and the lead's next turn is its child.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingIT {

    private static final Duration PATIENCE = Duration.ofMinutes(4);
    /** OTLP span kinds: SERVER 2, CLIENT 3, PRODUCER 4, CONSUMER 5. */
    private static final int SERVER = 2;
    private static final int PRODUCER = 4;
    private static final int CONSUMER = 5;

    private OtlpCollector collector;
    private TeamStack stack;

    @BeforeAll
    void start() {
        collector = OtlpCollector.start(0);
        stack = TeamStack.start(1, Map.of(
                "COHORT_TRACING", "true",
                "QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint(),
                "QUARKUS_OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "QUARKUS_OTEL_BSP_SCHEDULE_DELAY", "200ms"));
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
        if (collector != null) {
            collector.close();
        }
    }

    @Test
    void theChainFromThePromptToTheTeammatesProcessIsUnbrokenAcrossServices() {
        String team = stack.createTeam("traced");
        stack.appendRules("""
                {"name":"traced-lead-spawn","match":{"agent":"traced/lead","lastRole":"user","lastMessage":"Spawn alice"},
                 "reply":{"toolCalls":[{"name":"spawn_teammate","arguments":{"name":"alice","role":"tracer","prompt":"Print your trace context."}}]}},
                {"name":"traced-lead-spawned","match":{"agent":"traced/lead","lastRole":"tool"},"reply":{"text":"alice is on it."}},
                {"name":"traced-lead-inbox","match":{"agent":"traced/lead","lastMessage":"\\\\[inbox\\\\]"},"reply":{"text":"noted"}},
                {"name":"traced-alice-bash","match":{"agent":"traced/alice","lastRole":"user","lastMessage":"Print your trace context"},
                 "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"printf 'tp=%s' \\"$TRACEPARENT\\""}}]}},
                {"name":"traced-alice-done","match":{"agent":"traced/alice","lastRole":"tool"},"reply":{"text":"printed it"}}
                """);
        try {
            stack.prompt(team, "Spawn alice to print her trace context.");

            // the tool runner's process span of alice's bash call, and its whole ancestry, reach the collector
            List<SpanRecord> chain = await("the chain from alice's process span to a root").atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(500)).until(this::processChain, Optional::isPresent).orElseThrow();
            String names = chain.stream().map(s -> s.service() + ":" + s.name()).collect(Collectors.joining("\n  <- "));

            // one trace, from the lead's HTTP ingress (the root) to alice's process
            assertThat(chain).extracting(SpanRecord::traceId).as(names).containsOnly(chain.getFirst().traceId());
            SpanRecord root = chain.getLast();
            assertThat(root.parentSpanId()).as(names).isEmpty();
            assertThat(root.service()).as(names).isEqualTo("cohort-lead-service");
            assertThat(root.kind()).as(names).isEqualTo(SERVER);
            assertThat(root.name()).as(names).contains("prompts");

            // from the root down, in this order (other spans, e.g. HTTP client spans, may sit in between)
            List<String> expected = List.of(
                    "cohort-lead-service:publish cohort.prompts",
                    "cohort-lead-service:process cohort.prompts",
                    "cohort-lead-service:invoke_agent lead",
                    "cohort-lead-service:execute_tool spawn_teammate",
                    "cohort-lead-service:publish cohort.teammate.inbox",
                    "cohort-teammate-service:process cohort.teammate.inbox",
                    "cohort-teammate-service:invoke_agent alice",
                    "cohort-teammate-service:execute_tool bash",
                    "cohort-tool-runner-service:process");
            List<String> downward = new ArrayList<>(chain.stream().map(s -> s.service() + ":" + s.name()).toList())
                    .reversed();
            int at = 0;
            for (String e : expected) {
                int found = -1;
                for (int i = at; i < downward.size(); i++) {
                    if (downward.get(i).startsWith(e)) {
                        found = i;
                        break;
                    }
                }
                assertThat(found).as("span " + e + " in the chain, below the previous one:\n  " + names).isGreaterThanOrEqualTo(0);
                at = found + 1;
            }
            assertThat(byName(chain, "publish cohort.teammate.inbox").kind()).isEqualTo(PRODUCER);
            assertThat(byName(chain, "process cohort.teammate.inbox").kind()).isEqualTo(CONSUMER);
            // the tool runner's HTTP server span is between the teammate's tool call and the process
            SpanRecord process = chain.getFirst();
            SpanRecord server = parentOf(chain, process);
            assertThat(server.service()).isEqualTo("cohort-tool-runner-service");
            assertThat(server.kind()).isEqualTo(SERVER);
            assertThat(process.attr("cohort.agent")).isEqualTo("alice");

            // the lead's turn has its model calls as children, with the gen_ai attributes
            SpanRecord leadTurn = byName(chain, "invoke_agent lead");
            List<SpanRecord> leadChats = collector.spans().stream()
                    .filter(s -> s.parentSpanId().equals(leadTurn.spanId()) && s.name().startsWith("chat")).toList();
            assertThat(leadChats).isNotEmpty().allSatisfy(c -> {
                assertThat(c.attr("gen_ai.request.model")).isEqualTo("scripted");
                assertThat(c.attr("gen_ai.usage.input_tokens")).isNotNull();
                assertThat(c.attr("gen_ai.usage.output_tokens")).isNotNull();
                assertThat(c.attr("cohort.retry_count")).isEqualTo("0");
            });

            // the command saw TRACEPARENT naming the process span
            String expectedTp = "tp=00-" + process.traceId() + "-" + process.spanId() + "-01";
            await("alice's model saw the bash output").atMost(PATIENCE).until(() -> stack.model().requests().stream()
                    .filter(r -> "traced-alice-done".equals(r.rule())).findFirst().isPresent());
            RecordedRequest afterBash = stack.model().requests().stream().filter(r -> "traced-alice-done".equals(r.rule()))
                    .findFirst().orElseThrow();
            assertThat(afterBash.body().path("messages").toString()).contains(expectedTp);
            // and back: alice's result goes to the lead's inbox in the same trace, and wakes a lead turn under it
            String trace = process.traceId();
            await("the lead's turn for alice's result, in the same trace").atMost(PATIENCE).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        List<SpanRecord> all = collector.spans();
                        SpanRecord back = all.stream().filter(x -> x.traceId().equals(trace)
                                && "cohort-lead-service".equals(x.service()) && x.name().equals("process cohort.lead.inbox"))
                                .findFirst().orElseThrow(() -> new AssertionError("no process cohort.lead.inbox in the trace"));
                        SpanRecord sent = all.stream().filter(x -> x.spanId().equals(back.parentSpanId())).findFirst()
                                .orElseThrow(() -> new AssertionError("no parent of the lead inbox's process span"));
                        assertThat(sent.service() + ":" + sent.name())
                                .isEqualTo("cohort-teammate-service:publish cohort.lead.inbox");
                        assertThat(all).anySatisfy(x -> {
                            assertThat(x.name()).isEqualTo("invoke_agent lead");
                            assertThat(x.parentSpanId()).isEqualTo(back.spanId());
                        });
                    });
            assertThat(collector.errors()).isEmpty();
            // no prompt text on any span
            assertThat(collector.spans()).allSatisfy(s -> assertThat(s.attributes().values().toString())
                    .doesNotContain("Spawn alice").doesNotContain("Print your trace context"));
        } catch (Throwable t) {
            System.out.println(stack.logs());
            System.out.println("spans: " + collector.spans().stream().map(s -> s.service() + ":" + s.name() + " "
                    + s.spanId() + "<-" + s.parentSpanId()).collect(Collectors.joining("\n  ")));
            throw t;
        }
    }

    @Test
    void aPromptOnKafkaContinuesTheTraceOfItsTraceparentHeaderAndAMalformedOneStartsANewTrace() {
        String team = stack.createTeam("kafkain");
        stack.appendRules("""
                {"name":"kafkain-lead","match":{"agent":"kafkain/lead","lastRole":"user"},"reply":{"text":"ok"}}
                """);
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        String parent = "00f067aa0ba902b7";
        try {
            stack.produce(Topics.PROMPTS, team,
                    "{\"id\":\"kafkain-1\",\"team\":\"" + team + "\",\"text\":\"from outside\",\"source\":\"external\"}",
                    Map.of("traceparent", "00-" + trace + "-" + parent + "-01"));
            await("the lead's turn under the outside producer's span").atMost(PATIENCE).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        List<SpanRecord> all = collector.spans();
                        SpanRecord process = all.stream().filter(x -> x.traceId().equals(trace)
                                && x.name().equals("process cohort.prompts")).findFirst()
                                .orElseThrow(() -> new AssertionError("no process cohort.prompts in trace " + trace));
                        assertThat(process.parentSpanId()).isEqualTo(parent);
                        assertThat(process.kind()).isEqualTo(CONSUMER);
                        assertThat(all).anySatisfy(x -> {
                            assertThat(x.name()).isEqualTo("invoke_agent lead");
                            assertThat(x.attr("cohort.team")).isEqualTo(team);
                            assertThat(x.parentSpanId()).isEqualTo(process.spanId());
                        });
                    });

            // a header that is not W3C trace context is ignored: the prompt still runs, in a trace of its own
            stack.produce(Topics.PROMPTS, team,
                    "{\"id\":\"kafkain-2\",\"team\":\"" + team + "\",\"text\":\"again\",\"source\":\"external\"}",
                    Map.of("traceparent", "not-a-traceparent"));
            await("the malformed header's prompt ran in a new trace").atMost(PATIENCE).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(collector.spans()).anySatisfy(x -> {
                        assertThat(x.name()).isEqualTo("process cohort.prompts");
                        assertThat(x.traceId()).isNotEqualTo(trace);
                        assertThat(x.parentSpanId()).isEmpty();
                        assertThat(collector.spans()).anySatisfy(t -> {
                            assertThat(t.name()).isEqualTo("invoke_agent lead");
                            assertThat(t.parentSpanId()).isEqualTo(x.spanId());
                        });
                    }));
        } catch (Throwable t) {
            System.out.println(stack.logs());
            throw t;
        }
    }

    /** Alice's process span and its ancestors up to a root (process first), once all of them arrived. */
    private Optional<List<SpanRecord>> processChain() {
        List<SpanRecord> all = collector.spans();
        Optional<SpanRecord> process = all.stream().filter(s -> "cohort-tool-runner-service".equals(s.service())
                && s.name().startsWith("process ") && "alice".equals(s.attr("cohort.agent"))).findFirst();
        if (process.isEmpty()) {
            return Optional.empty();
        }
        Map<String, SpanRecord> byId = all.stream().collect(Collectors.toMap(SpanRecord::spanId, s -> s, (a, b) -> a));
        List<SpanRecord> chain = new ArrayList<>();
        SpanRecord s = process.get();
        while (s != null) {
            chain.add(s);
            if (s.parentSpanId().isEmpty()) {
                return Optional.of(chain);
            }
            s = byId.get(s.parentSpanId());
        }
        return Optional.empty(); // a parent not exported yet
    }

    private static SpanRecord byName(List<SpanRecord> chain, String name) {
        return chain.stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in the chain"));
    }

    private static SpanRecord parentOf(List<SpanRecord> chain, SpanRecord child) {
        return chain.stream().filter(s -> s.spanId().equals(child.parentSpanId())).findFirst()
                .orElseThrow(() -> new AssertionError("no parent of " + child.name()));
    }
}

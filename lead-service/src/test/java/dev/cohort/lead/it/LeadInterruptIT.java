package dev.cohort.lead.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.devstack.ServiceProcess;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.ConsumerGroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Interrupt from anywhere, with two real lead-service replicas: the interrupt is sent to the
 * replica that does NOT host the team's lead, which answers {@code interruptRequested} and hands the request to the
 * owner as a {@code control} message on {@code cohort.lead.inbox}; the owner ends the running turn cancelled.
 * Which replica owns which partition is read from the consumer group (each replica has its own Kafka client id), so
 * the team is chosen on the first replica's partitions rather than hoped for.
 */
class LeadInterruptIT {

    private static final String GROUP = "cohort-lead";
    private static final int PARTITIONS = 4; // LeadStack's devstack topics

    /**
     * A replica with its own Kafka client id; its sweeper practically off (1 h), so a parked turn resumes only when
     * the answer's {@code approval_resolved} control reaches it, not because a sweep found the answer.
     */
    private static Map<String, String> clientId(String id) {
        return Map.of("JAVA_TOOL_OPTIONS", "-Dmp.messaging.incoming.lead-in.client.id=" + id,
                "COHORT_HOST_SWEEP_INTERVAL", "1h");
    }

    /** A turn that never ends on its own: each tool result is answered with another call, 1 s apart (50 calls max). */
    private static String loop(String team) {
        String agent = team + "/lead";
        return """
                {"rules":[
                  {"name":"start","match":{"agent":"%1$s","lastMessage":"^keep going$"},
                   "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo looping"}}]}},
                  {"name":"loop","match":{"agent":"%1$s","lastRole":"tool"},
                   "reply":{"delayMs":1000,"toolCalls":[{"name":"bash","arguments":{"command":"echo looping"}}]}}
                ]}""".formatted(agent);
    }

    /**
     * Also, with the same two replicas: an approval answered on the replica that does not host the parked lead wakes
     * it on its owner at once (a {@code control approval_resolved} on the lead's inbox partition), with the owner's
     * sweeper off, and the approved call runs once.
     */
    @Test
    void anInterruptSentToTheReplicaThatDoesNotHostTheTeamEndsTheTurnOnTheOwnerCancelled() throws Exception {
        try (LeadStack stack = LeadStack.start(true, null, clientId("lead-a"))) {
            try {
                interruptThroughTheOtherReplica(stack);
                approveThroughTheOtherReplica(stack);
            } catch (Throwable t) {
                System.out.println("[LeadInterruptIT] service logs:\n" + stack.logs());
                throw t;
            }
        }
    }

    private void interruptThroughTheOtherReplica(LeadStack stack) throws Exception {
        ServiceProcess b = stack.startReplica("b", clientId("lead-b"));
        Set<Integer> ofA = awaitTwoMembersAndPartitionsOf(stack, "lead-a");
        // a team whose partition replica A owns (Kafka's default partitioner, as the lead's ownership computes it)
        String team = IntStream.range(0, 1000).mapToObj(i -> "intr-" + i)
                .filter(t -> ofA.contains(Utils.toPositive(Utils.murmur2(t.getBytes(StandardCharsets.UTF_8))) % PARTITIONS))
                .findFirst().orElseThrow();
        stack.createTeam(team);
        stack.model().load(loop(team));
        String promptId = stack.prompt(team, "keep going");

        try (EventStream sse = stack.events(team, 0)) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sse.ofPrompt(promptId).stream().anyMatch(r -> r.type().equals("tool_call_finished")));

            HttpResponse<String> r = stack.send(HttpRequest.newBuilder(URI.create(b.url() + "/api/v1/teams/" + team
                    + "/agents/lead/interrupt")).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build());
            assertThat(r.statusCode()).isEqualTo(202);
            // B does not run the turn: it asked the owner through Kafka
            assertThat(LeadStack.json(r.body())).isEqualTo(Json.MAPPER.readTree("{\"interruptRequested\":true}"));

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sse.ofPrompt(promptId).stream().anyMatch(e -> e.type().equals("turn_completed")));
            List<JsonNode> completed = sse.ofPrompt(promptId).stream().filter(e -> e.type().equals("turn_completed"))
                    .map(EventStream.Received::event).toList();
            assertThat(completed).hasSize(1);
            assertThat(completed.get(0).path("data").path("reason").asText()).isEqualTo("cancelled");
        }
        // the lead is idle again, as both replicas see it
        assertThat(LeadStack.json(stack.get("/api/v1/teams/" + team + "/agents/lead").body()).path("status").asText())
                .isEqualTo("idle");
    }

    private void approveThroughTheOtherReplica(LeadStack stack) throws Exception {
        ServiceProcess b = stack.replicas().get(0);
        Set<Integer> ofA = awaitTwoMembersAndPartitionsOf(stack, "lead-a");
        String team = IntStream.range(0, 1000).mapToObj(i -> "appr-" + i)
                .filter(t -> ofA.contains(Utils.toPositive(Utils.murmur2(t.getBytes(StandardCharsets.UTF_8))) % PARTITIONS))
                .findFirst().orElseThrow();
        stack.createTeam(team);
        String agent = team + "/lead";
        stack.model().load("""
                {"rules":[
                  {"name":"rm","match":{"agent":"%1$s","lastMessage":"^clean the build$"},
                   "reply":{"toolCalls":[{"name":"bash","arguments":{"command":"mkdir -p build && rm -r build && echo removed >> removals.txt"}}]}},
                  {"name":"after","match":{"agent":"%1$s","lastRole":"tool"},"reply":{"text":"cleaned"}}
                ]}""".formatted(agent));
        String promptId = stack.prompt(team, "clean the build");
        try (EventStream sse = stack.events(team, 0)) {
            JsonNode asked = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sse.received().stream().filter(e -> e.type().equals("approval_requested"))
                            .map(EventStream.Received::event).findFirst().orElse(null), e -> e != null);
            String approvalId = asked.path("data").path("approvalId").asText();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> "waiting_approval"
                    .equals(LeadStack.json(stack.get("/api/v1/teams/" + team + "/agents/lead").body()).path("status").asText()));

            HttpResponse<String> r = stack.send(HttpRequest.newBuilder(URI.create(b.url() + "/api/v1/teams/" + team
                    + "/approvals/" + approvalId)).timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"approve\":true}")).build());
            assertThat(r.statusCode()).isEqualTo(200);

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sse.ofPrompt(promptId).stream().anyMatch(e -> e.type().equals("turn_completed")));
            JsonNode done = sse.ofPrompt(promptId).stream().filter(e -> e.type().equals("turn_completed"))
                    .map(EventStream.Received::event).findFirst().orElseThrow();
            assertThat(done.path("data").path("status").asText()).isEqualTo("completed");
        }
        assertThat(Files.readString(stack.workspace().resolve("teams").resolve(team).resolve("removals.txt")))
                .as("the approved call ran once").isEqualTo("removed\n");
    }

    /**
     * Waits until the group is stable with both replicas in it, each with partitions of {@code cohort.prompts}, and
     * returns those of the member whose client id starts with {@code clientId}.
     */
    private static Set<Integer> awaitTwoMembersAndPartitionsOf(LeadStack stack, String clientId) {
        try (Admin admin = Admin.create(stack.devstack().kafkaClientProperties())) {
            return await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
                ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
                if (g.state() != ConsumerGroupState.STABLE || g.members().size() != 2) {
                    return null;
                }
                Map<String, Set<Integer>> byClient = g.members().stream().collect(Collectors.toMap(MemberDescription::clientId,
                        m -> m.assignment().topicPartitions().stream().filter(p -> p.topic().equals(Topics.PROMPTS))
                                .map(TopicPartition::partition).collect(Collectors.toSet())));
                if (byClient.values().stream().anyMatch(Set::isEmpty)) {
                    return null;
                }
                return byClient.entrySet().stream().filter(e -> e.getKey().startsWith(clientId)).map(Map.Entry::getValue)
                        .findFirst().orElse(null);
            }, p -> p != null);
        }
    }
}

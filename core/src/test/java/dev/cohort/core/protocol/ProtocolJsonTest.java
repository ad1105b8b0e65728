package dev.cohort.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JSON round trips of the wire records (ARCHITECTURE §4.2): unknown fields ignored, unknown types rejected. */
class ProtocolJsonTest {

    @Test
    void agentMessageRoundTripsWithEveryField() {
        AgentMessage m = new AgentMessage("m1", "default", "lead", "alice", MessageType.SHUTDOWN_REQUEST, "please stop",
                Map.of("requestId", "r1", "approve", true), Instant.parse("2026-11-30T10:00:00Z"));
        String json = Json.write(m);
        assertThat(json).contains("\"type\":\"shutdown_request\"").contains("\"ts\":\"2026-11-30T10:00:00Z\"");
        assertThat(AgentMessage.parse(json)).isEqualTo(m);
        assertThat(m.key()).isEqualTo("default/alice");
    }

    @Test
    void messagesToTheLeadAreKeyedByTeam() {
        AgentMessage m = AgentMessage.of("t1", "alice", "lead", MessageType.RESULT, "done", null);
        assertThat(m.key()).isEqualTo("t1");
        assertThat(m.metadata()).isEmpty();
    }

    @Test
    void unknownFieldsAreIgnored() {
        AgentMessage m = AgentMessage.parse("""
                {"id":"m1","team":"default","from":"lead","to":"bob","type":"message","content":"hi",
                 "ts":"2026-11-30T10:00:00Z","futureField":{"x":1},"metadata":{"newKey":"v"}}""");
        assertThat(m.content()).isEqualTo("hi");
        assertThat(m.metadata()).containsEntry("newKey", "v");
        Event e = Event.parse("""
                {"id":"e1","team":"default","agent":"lead","seq":7,"ts":"2026-11-30T10:00:00Z","type":"turn_started",
                 "data":{"a":1},"extra":"ignored"}""");
        assertThat(e.seq()).isEqualTo(7);
        assertThat(e.type()).isEqualTo(EventType.TURN_STARTED);
        assertThat(e.data().get("a").asInt()).isEqualTo(1);
    }

    @Test
    void unknownMessageTypesAreRejectedNamingTheType() {
        assertThatThrownBy(() -> AgentMessage.parse("""
                {"id":"m1","team":"default","from":"lead","to":"bob","type":"teleport","content":"hi"}"""))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown message type \"teleport\"")
                .hasMessageContaining("shutdown_request");
    }

    @Test
    void unknownEventTypesAreRejectedNamingTheType() {
        assertThatThrownBy(() -> Event.parse("""
                {"id":"e1","team":"default","agent":"lead","seq":1,"type":"exploded","data":{}}"""))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown event type \"exploded\"");
    }

    @Test
    void eventRoundTripsAndEveryEventTypeOfTheContractExists() {
        Event e = new Event("e1", "default", "lead", 3, Instant.parse("2026-11-30T10:00:00Z"), EventType.ASSISTANT_MESSAGE,
                Json.MAPPER.createObjectNode().put("text", "hello"));
        assertThat(Event.parse(Json.write(e))).isEqualTo(e);
        for (String t : new String[] {"turn_started", "assistant_message", "tool_call_started", "tool_call_finished",
                "turn_completed", "approval_requested", "approval_resolved", "task_created", "task_claimed", "task_completed",
                "teammate_spawned", "teammate_phase", "message_sent", "protocol_updated", "compacted", "memory_updated",
                "cron_fired", "background_started", "background_finished", "error"}) {
            assertThat(EventType.of(t).wire()).isEqualTo(t);
        }
        for (String t : new String[] {"message", "result", "shutdown_request", "shutdown_response", "plan_approval_request",
                "plan_approval_response", "task_available", "background_done", "spawn", "control"}) {
            assertThat(MessageType.of(t).wire()).isEqualTo(t);
        }
    }

    @Test
    void malformedJsonIsAProtocolError() {
        assertThatThrownBy(() -> AgentMessage.parse("{\"id\": ")).isInstanceOf(ProtocolException.class)
                .hasMessageStartingWith("invalid AgentMessage JSON");
        assertThatThrownBy(() -> AgentMessage.parse("{\"id\":\"x\",\"team\":\"default\",\"type\":\"message\"}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("no \"to\"");
    }

    @Test
    void promptRecordsAcceptJsonOrPlainTextKeyedByTeam() {
        assertThat(PromptRecord.fromRecord("default", "{\"team\":\"default\",\"text\":\"hi\",\"source\":\"cli\",\"id\":\"p1\"}"))
                .isEqualTo(new PromptRecord("p1", "default", "hi", "cli"));
        assertThat(PromptRecord.fromRecord("default", "{\"text\":\"hi\"}"))
                .isEqualTo(new PromptRecord(null, "default", "hi", "kafka"));
        assertThat(PromptRecord.fromRecord("default", "fix the build"))
                .isEqualTo(new PromptRecord(null, "default", "fix the build", "kafka"));
        assertThat(PromptRecord.fromRecord("default", "{\"team\":\"default\",\"text\":\"hi\",\"unknown\":[1,2]}").text())
                .isEqualTo("hi");
    }

    @Test
    void badPromptRecordsAreRejectedWithTheReason() {
        assertThatThrownBy(() -> PromptRecord.fromRecord("default", "{\"text\": ")).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> PromptRecord.fromRecord(null, "plain")).hasMessageContaining("needs the team id as its key");
        assertThatThrownBy(() -> PromptRecord.fromRecord("default", "{\"team\":\"default\"}")).hasMessageContaining("no \"text\"");
        assertThatThrownBy(() -> PromptRecord.fromRecord("Bad", "hi")).hasMessageContaining("invalid team id");
        assertThatThrownBy(() -> PromptRecord.fromRecord("a", "{\"team\":\"b\",\"text\":\"x\"}")).hasMessageContaining("differs");
        assertThatThrownBy(() -> PromptRecord.fromRecord("default", "[1]")).hasMessageContaining("array");
        assertThatThrownBy(() -> PromptRecord.fromRecord("default", "  ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> PromptRecord.fromRecord("default", "{\"text\":{\"a\":1}}")).hasMessageContaining("must be a string");
    }

    @Test
    void topicsAreTheContractNames() {
        assertThat(Topics.ALL).containsExactly("cohort.prompts", "cohort.lead.inbox", "cohort.teammate.inbox", "cohort.events",
                "cohort.dlq");
        assertThat(Topics.ALL_CSV.split(",")).containsExactlyElementsOf(Topics.ALL);
    }

    @Test
    void idsFollowTheContractPatterns() {
        assertThat(Ids.isTeam("default")).isTrue();
        assertThat(Ids.isTeam("a".repeat(63))).isTrue();
        assertThat(Ids.isTeam("a".repeat(64))).isFalse();
        assertThat(Ids.isTeam("-x")).isFalse();
        assertThat(Ids.isAgent("alice_2")).isTrue();
        assertThat(Ids.isAgent("2alice")).isFalse();
        assertThat(Ids.agentId("default", "lead")).isEqualTo("default/lead");
    }
}

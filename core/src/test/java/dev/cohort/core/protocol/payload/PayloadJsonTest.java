package dev.cohort.core.protocol.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.ProtocolException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The typed payloads keep the wire format of ARCHITECTURE §4.2 byte for byte: each event's JSON is compared with the
 * JSON the hand-built {@code ObjectNode} of the emit site produced before the records existed (same fields, same
 * order, same values, same omissions), and metadata written before the records existed parses into them.
 */
class PayloadJsonTest {

    private static final Instant TS = Instant.parse("2026-12-01T10:00:00.123456Z");

    /** The event JSON as it goes on the wire, with id, team, agent and time fixed so two events' data can be compared. */
    private static String wire(Event e) {
        return Json.write(new Event("e1", "default", "lead", 0, TS, e.type(), e.data()));
    }

    private static String wireBefore(EventType type, ObjectNode data) {
        return wire(new Event("e1", "default", "lead", 0, TS, type, data));
    }

    private static List<String> fields(Event e) {
        List<String> names = new ArrayList<>();
        e.data().fieldNames().forEachRemaining(names::add);
        return names;
    }

    // --- events: today's shape, as the emit sites built it before ------------------------------------------------

    @Test
    void memoryUpdatedHasTheShapeOfEachOfItsThreeActions() {
        ObjectNode before = Event.newData().put("action", "extracted");
        ArrayNode c = before.putArray("created");
        c.add("prefers-tabs");
        before.putArray("updated");
        Event extracted = Event.of("default", "lead", MemoryUpdated.extracted(List.of("prefers-tabs"), List.of()));
        assertThat(wire(extracted)).isEqualTo(wireBefore(EventType.MEMORY_UPDATED, before));
        assertThat(fields(extracted)).containsExactly("action", "created", "updated");

        Event refused = Event.of("default", "lead", MemoryUpdated.consolidationRefused("refused: no array", 31));
        assertThat(wire(refused)).isEqualTo(wireBefore(EventType.MEMORY_UPDATED, Event.newData()
                .put("action", "consolidation_refused").put("reason", "refused: no array").put("count", 31)));
        assertThat(fields(refused)).containsExactly("action", "reason", "count");

        Event consolidated = Event.of("default", "lead", MemoryUpdated.consolidated(31, 20));
        assertThat(wire(consolidated)).isEqualTo(wireBefore(EventType.MEMORY_UPDATED, Event.newData()
                .put("action", "consolidated").put("from", 31).put("to", 20)));
        assertThat(fields(consolidated)).containsExactly("action", "from", "to");
    }

    @Test
    void aMemoryFailureIsAnErrorEventWithItsMessage() {
        Event e = Event.of("default", "lead", new MemoryError("memory extraction failed: boom"));
        assertThat(e.type()).isEqualTo(EventType.ERROR);
        assertThat(wire(e)).isEqualTo(wireBefore(EventType.ERROR, Event.newData()
                .put("message", "memory extraction failed: boom")));
    }

    @Test
    void taskCreatedCarriesTheDescriptionDependenciesAndCreator() {
        ObjectNode before = Event.newData().put("id", "task_3").put("subject", "write tests").put("status", "pending");
        before.put("description", "");
        ArrayNode deps = before.putArray("blockedBy");
        deps.add("task_1");
        deps.add("task_2");
        before.put("createdBy", "lead");
        Event e = Event.of("default", "lead", new TaskCreated("task_3", "write tests", "pending", "",
                List.of("task_1", "task_2"), "lead"));
        assertThat(e.type()).isEqualTo(EventType.TASK_CREATED);
        assertThat(wire(e)).isEqualTo(wireBefore(EventType.TASK_CREATED, before));
        assertThat(fields(e)).containsExactly("id", "subject", "status", "description", "blockedBy", "createdBy");
    }

    @Test
    void taskClaimedOmitsTheLeaseWhenTheClaimHasNone() {
        Instant lease = Instant.parse("2026-12-01T10:05:00.654321Z");
        Event leased = Event.of("default", "alice", new TaskClaimed("task_3", "write tests", "in_progress", "alice",
                "claim-next", lease));
        assertThat(wire(leased)).isEqualTo(wireBefore(EventType.TASK_CLAIMED, Event.newData().put("id", "task_3")
                .put("subject", "write tests").put("status", "in_progress").put("owner", "alice").put("via", "claim-next")
                .put("leaseUntil", lease.toString())));
        assertThat(wire(leased)).contains("\"leaseUntil\":\"2026-12-01T10:05:00.654321Z\"");

        Event open = Event.of("default", "lead", new TaskClaimed("task_3", "write tests", "in_progress", "lead", "claim",
                null));
        assertThat(wire(open)).isEqualTo(wireBefore(EventType.TASK_CLAIMED, Event.newData().put("id", "task_3")
                .put("subject", "write tests").put("status", "in_progress").put("owner", "lead").put("via", "claim")));
        assertThat(fields(open)).containsExactly("id", "subject", "status", "owner", "via");
    }

    @Test
    void taskCompletedListsExactlyTheTasksItUnblocked() {
        ObjectNode before = Event.newData().put("id", "task_1").put("subject", "schema").put("status", "completed");
        before.put("owner", "alice");
        ArrayNode ub = before.putArray("unblocked");
        ub.addObject().put("id", "task_2").put("subject", "api");
        Event e = Event.of("default", "alice", new TaskCompleted("task_1", "schema", "completed", "alice",
                List.of(new TaskCompleted.Unblocked("task_2", "api"))));
        assertThat(wire(e)).isEqualTo(wireBefore(EventType.TASK_COMPLETED, before));

        ObjectNode none = Event.newData().put("id", "task_2").put("subject", "api").put("status", "completed");
        none.put("owner", "alice");
        none.putArray("unblocked");
        assertThat(wire(Event.of("default", "alice", new TaskCompleted("task_2", "api", "completed", "alice", List.of()))))
                .isEqualTo(wireBefore(EventType.TASK_COMPLETED, none));
    }

    @Test
    void cronFiredOmitsMissedSinceUnlessOccurrencesWereMissed() {
        Instant due = Instant.parse("2026-12-01T09:00:00Z");
        Instant missed = Instant.parse("2026-11-30T09:00:00Z");
        ObjectNode before = Event.newData();
        before.put("jobId", "cron_1");
        before.put("cron", "0 9 * * *");
        before.put("timezone", "Europe/Paris");
        before.put("target", "alice");
        before.put("dueAt", due.toString());
        before.put("catchUp", true);
        before.put("missedSince", missed.toString());
        before.put("recurring", true);
        before.put("messageId", "m1");
        before.put("prompt", "run the nightly checks");
        Event e = Event.of("default", "lead", new CronFired("cron_1", "0 9 * * *", "Europe/Paris", "alice", due, true,
                missed, true, "m1", "run the nightly checks"));
        assertThat(e.type()).isEqualTo(EventType.CRON_FIRED);
        assertThat(wire(e)).isEqualTo(wireBefore(EventType.CRON_FIRED, before));

        before.remove("missedSince");
        before.put("catchUp", false);
        Event onTime = Event.of("default", "lead", new CronFired("cron_1", "0 9 * * *", "Europe/Paris", "alice", due,
                false, null, true, "m1", "run the nightly checks"));
        assertThat(wire(onTime)).isEqualTo(wireBefore(EventType.CRON_FIRED, before));
        assertThat(fields(onTime)).containsExactly("jobId", "cron", "timezone", "target", "dueAt", "catchUp", "recurring",
                "messageId", "prompt");
    }

    @Test
    void backgroundEventsKeepANullExitCodeAndDurationOnTheWire() {
        Event started = Event.of("default", "lead", new BackgroundStarted("bg_1", "call_7", "make test"));
        assertThat(wire(started)).isEqualTo(wireBefore(EventType.BACKGROUND_STARTED, Event.newData().put("id", "bg_1")
                .put("callId", "call_7").put("command", "make test")));

        Event finished = Event.of("default", "lead", new BackgroundFinished("bg_1", "failed", 4, 1250L));
        assertThat(wire(finished)).isEqualTo(wireBefore(EventType.BACKGROUND_FINISHED, Event.newData().put("id", "bg_1")
                .put("status", "failed").put("exitCode", 4).put("durationMs", 1250L)));

        // before the records, put("exitCode", (Integer) null) wrote an explicit null: it still does
        Event killed = Event.of("default", "lead", new BackgroundFinished("bg_1", "timed_out", null, null));
        assertThat(wire(killed)).isEqualTo(wireBefore(EventType.BACKGROUND_FINISHED, Event.newData().put("id", "bg_1")
                .put("status", "timed_out").put("exitCode", (Integer) null).put("durationMs", (Long) null)));
        assertThat(wire(killed)).contains("\"exitCode\":null,\"durationMs\":null");
    }

    @Test
    void aTypedEventIsAnOrdinaryEventThatParsesBack() {
        Event e = Event.of("default", "lead", new BackgroundStarted("bg_1", "call_7", "make test"));
        assertThat(e.seq()).isZero();
        assertThat(e.id()).isNotBlank();
        Event parsed = Event.parse(Json.write(e));
        assertThat(parsed).isEqualTo(e);
        assertThat(Json.MAPPER.convertValue(parsed.data(), BackgroundStarted.class))
                .isEqualTo(new BackgroundStarted("bg_1", "call_7", "make test"));
    }

    // --- agent-message metadata ----------------------------------------------------------------------------------

    /** The metadata object as it arrives: a message written and parsed, as a consumer sees it. */
    private static Map<String, Object> received(AgentMessage m) {
        return AgentMessage.parse(Json.write(m)).metadata();
    }

    @Test
    void cronFiringMetadataIsTheObjectTheSchedulerWroteBefore() {
        Instant due = Instant.parse("2026-12-01T09:00:00Z");
        Map<String, Object> before = new LinkedHashMap<>();
        before.put("source", "cron");
        before.put("cronJobId", "cron_1");
        before.put("dueAt", due.toString());
        before.put("catchUp", false);
        AgentMessage old = new AgentMessage("m1", "default", "scheduler", "alice", MessageType.MESSAGE, "[cron] hi",
                before, TS);
        AgentMessage typed = AgentMessage.of("m1", "default", "scheduler", "alice", "[cron] hi",
                CronFiring.of("cron_1", due, false), TS);
        assertThat(typed).isEqualTo(old);
        assertThat(received(typed)).isEqualTo(received(old)).containsOnlyKeys("source", "cronJobId", "dueAt", "catchUp");
        assertThat(AgentMessage.parse(Json.write(old)).metadataAs(CronFiring.class))
                .isEqualTo(new CronFiring("cron", "cron_1", due, false));
    }

    @Test
    void backgroundDoneMetadataOmitsWhatIsUnknownAsTheToolRunnerDidBefore() {
        Map<String, Object> before = new LinkedHashMap<>();
        before.put("jobId", "bg_1");
        before.put("callId", "call_7");
        before.put("status", "completed");
        before.put("exitCode", 0);
        before.put("durationMs", 1250L);
        before.put("outputRef", "cohort-output://bg_1");
        before.put("command", "make test");
        AgentMessage old = new AgentMessage("background_done-bg_1", "default", "tool-runner", "lead",
                MessageType.BACKGROUND_DONE, "done", before, TS);
        BackgroundDone meta = new BackgroundDone("bg_1", "call_7", "completed", 0, 1250L, "cohort-output://bg_1",
                "make test", null);
        AgentMessage typed = AgentMessage.of("background_done-bg_1", "default", "tool-runner", "lead", "done", meta, TS);
        assertThat(typed).isEqualTo(old);
        assertThat(received(typed)).isEqualTo(received(old))
                .containsOnlyKeys("jobId", "callId", "status", "exitCode", "durationMs", "outputRef", "command");

        BackgroundDone timedOut = new BackgroundDone("bg_2", "call_8", "timed_out", null, 30000L, "cohort-output://bg_2",
                "sleep 99", "timed out after 30 s");
        assertThat(received(AgentMessage.of("default", "tool-runner", "lead", "late", timedOut)))
                .containsOnlyKeys("jobId", "callId", "status", "durationMs", "outputRef", "command", "error")
                .containsEntry("error", "timed out after 30 s");

        AgentMessage parsed = AgentMessage.parse("""
                {"id":"background_done-bg_1","team":"default","from":"tool-runner","to":"lead","type":"background_done",
                 "content":"done","metadata":{"jobId":"bg_1","callId":"call_7","status":"completed","exitCode":0,
                 "durationMs":1250,"outputRef":"cohort-output://bg_1","command":"make test"},"ts":"2026-12-01T10:00:00Z"}""");
        assertThat(parsed.metadataAs(BackgroundDone.class)).isEqualTo(meta);
    }

    @Test
    void protocolMetadataReadsTheFormsOfTheContractAndTheSeed() {
        AgentMessage request = AgentMessage.of("default", "lead", "alice", "please stop",
                new ShutdownRequest("req_004211", null));
        assertThat(request.type()).isEqualTo(MessageType.SHUTDOWN_REQUEST);
        assertThat(received(request)).isEqualTo(Map.of("requestId", "req_004211"));

        // the form of ProtocolJsonTest's message, written by hand before the records existed
        AgentMessage response = new AgentMessage("m1", "default", "alice", "lead", MessageType.SHUTDOWN_RESPONSE, "bye",
                Map.of("requestId", "req_004211", "approve", true), TS);
        assertThat(response.metadataAs(ShutdownResponse.class)).isEqualTo(new ShutdownResponse("req_004211", true, null));
        // as in the seed, an absent approve is a refusal
        AgentMessage noVerdict = new AgentMessage("m2", "default", "alice", "lead", MessageType.SHUTDOWN_RESPONSE, "?",
                Map.of("requestId", "req_1"), TS);
        assertThat(noVerdict.metadataAs(ShutdownResponse.class).approve()).isFalse();

        assertThat(received(AgentMessage.of("default", "alice", "lead", "1. schema 2. api",
                new PlanApprovalRequest("req_7")))).isEqualTo(Map.of("requestId", "req_7"));
        AgentMessage verdict = AgentMessage.of("default", "lead", "alice", "add an index",
                new PlanApprovalResponse("req_7", false, "add an index"));
        assertThat(received(verdict)).isEqualTo(Map.of("requestId", "req_7", "approve", false, "feedback", "add an index"));
        assertThat(AgentMessage.parse(Json.write(verdict)).metadataAs(PlanApprovalResponse.class))
                .isEqualTo(new PlanApprovalResponse("req_7", false, "add an index"));
        assertThat(received(AgentMessage.of("default", "lead", "alice", "ok", new PlanApprovalResponse("req_7", true, null))))
                .isEqualTo(Map.of("requestId", "req_7", "approve", true));
    }

    @Test
    void spawnAndTaskAvailableMetadataRoundTrip() {
        AgentMessage spawn = AgentMessage.of("default", "lead", "alice", "", new Spawn("tester", "write the tests", true));
        assertThat(spawn.type()).isEqualTo(MessageType.SPAWN);
        assertThat(received(spawn)).isEqualTo(Map.of("role", "tester", "prompt", "write the tests", "planMode", true));
        assertThat(AgentMessage.parse(Json.write(spawn)).metadataAs(Spawn.class))
                .isEqualTo(new Spawn("tester", "write the tests", true));
        assertThat(new AgentMessage("m1", "default", "lead", "alice", MessageType.SPAWN, "",
                Map.of("role", "tester", "prompt", "go"), TS).metadataAs(Spawn.class).planMode()).isFalse();

        AgentMessage available = AgentMessage.of("default", "lead", "alice", "task_3 is free",
                new TaskAvailable("task_3", null));
        assertThat(available.type()).isEqualTo(MessageType.TASK_AVAILABLE);
        assertThat(received(available)).isEqualTo(Map.of("taskId", "task_3"));
    }

    @Test
    void controlMetadataRoundTripsAndAnUnknownActionIsAProtocolErrorListingTheKnownOnes() {
        AgentMessage interrupt = AgentMessage.of("default", "api", "lead", "", Control.interrupt("turn_1"));
        assertThat(interrupt.type()).isEqualTo(MessageType.CONTROL);
        assertThat(Json.MAPPER.valueToTree(interrupt).get("type").asText()).isEqualTo("control");
        assertThat(received(interrupt)).isEqualTo(Map.of("action", "interrupt", "turnId", "turn_1"));
        assertThat(AgentMessage.parse(Json.write(interrupt)).metadataAs(Control.class)).isEqualTo(Control.interrupt("turn_1"));
        assertThat(received(AgentMessage.of("default", "api", "lead", "", Control.interrupt(null))))
                .isEqualTo(Map.of("action", "interrupt"));

        AgentMessage teleport = new AgentMessage("m1", "default", "api", "lead", MessageType.CONTROL, "",
                Map.of("action", "teleport"), TS);
        assertThatThrownBy(() -> teleport.metadataAs(Control.class)).isInstanceOf(ProtocolException.class)
                .hasMessageStartingWith("metadata is not a valid Control")
                .hasMessageContaining("unknown control action \"teleport\"; known: interrupt");
    }

    @Test
    void unknownMetadataFieldsAreIgnoredSoNewerProducersDoNotBreakOlderReaders() {
        AgentMessage m = AgentMessage.parse("""
                {"id":"m1","team":"default","from":"lead","to":"alice","type":"shutdown_request","content":"stop",
                 "metadata":{"requestId":"req_1","deadline":"2026-12-02T00:00:00Z"},"ts":"2026-12-01T10:00:00Z"}""");
        assertThat(m.metadataAs(ShutdownRequest.class)).isEqualTo(new ShutdownRequest("req_1", null));
        // and the raw object still carries the field the typed record does not know
        assertThat(m.metadata()).containsEntry("deadline", "2026-12-02T00:00:00Z");
    }

    @Test
    void metadataReadAsAnotherMessageTypesRecordIsRefusedNamingBoth() {
        AgentMessage m = new AgentMessage("m1", "default", "tool-runner", "lead", MessageType.BACKGROUND_DONE, "done",
                Map.of("jobId", "bg_1"), TS);
        assertThatThrownBy(() -> m.metadataAs(ShutdownResponse.class)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("shutdown_response").hasMessageContaining("ShutdownResponse")
                .hasMessageContaining("background_done message m1");
    }

    @Test
    void metadataWithAValueOfTheWrongKindIsAProtocolErrorNamingTheRecord() {
        AgentMessage m = new AgentMessage("m1", "default", "lead", "alice", MessageType.PLAN_APPROVAL_RESPONSE, "?",
                Map.of("requestId", "req_1", "approve", "maybe"), TS);
        assertThatThrownBy(() -> m.metadataAs(PlanApprovalResponse.class)).isInstanceOf(ProtocolException.class)
                .hasMessageStartingWith("metadata is not a valid PlanApprovalResponse");
        assertThatThrownBy(() -> MessageMetadata.from(Map.of("exitCode", "zero"), BackgroundDone.class))
                .isInstanceOf(ProtocolException.class).hasMessageStartingWith("metadata is not a valid BackgroundDone");
    }

    @Test
    void eachMetadataRecordBelongsToOneMessageType() {
        List<MessageType> types = Arrays.stream(MessageMetadata.class.getPermittedSubclasses())
                .map(c -> MessageMetadata.from(Map.of(), c.asSubclass(MessageMetadata.class)).type()).toList();
        assertThat(types).containsExactlyInAnyOrder(MessageType.MESSAGE, MessageType.BACKGROUND_DONE,
                MessageType.SHUTDOWN_REQUEST, MessageType.SHUTDOWN_RESPONSE, MessageType.PLAN_APPROVAL_REQUEST,
                MessageType.PLAN_APPROVAL_RESPONSE, MessageType.TASK_AVAILABLE, MessageType.SPAWN, MessageType.CONTROL,
                MessageType.RESULT);
        // and no record serialises its type() into the metadata object
        JsonNode spawn = Json.MAPPER.valueToTree(new Spawn("r", "p", false));
        assertThat(spawn.has("type")).isFalse();
        JsonNode started = Json.MAPPER.valueToTree(new BackgroundStarted("bg_1", "c", "ls"));
        assertThat(started.has("type")).isFalse();
    }
}

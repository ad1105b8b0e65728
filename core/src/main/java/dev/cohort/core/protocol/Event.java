package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.payload.EventPayload;
import java.time.Instant;

/**
 * An observable event on {@link Topics#EVENTS}: {@code {"id","team","agent","seq","ts","type","promptId"?,"data"}}.
 * {@code seq} increases per team; it is assigned by the event store of lead-service when the event is persisted
 * (producers that cannot sequence publish {@code seq = 0}). {@code promptId} (an addition to the contract's envelope) is
 * the prompt whose turn emitted the event, set by the engine when it makes the event; absent outside a prompt's turn.
 */
@JsonPropertyOrder({"id", "team", "agent", "seq", "ts", "type", "promptId", "data"})
public record Event(String id, String team, String agent, long seq, Instant ts, EventType type,
        @JsonInclude(JsonInclude.Include.NON_NULL) String promptId, JsonNode data) {

    @JsonCreator
    public Event {
    }

    /** An event outside a prompt's turn. */
    public Event(String id, String team, String agent, long seq, Instant ts, EventType type, JsonNode data) {
        this(id, team, agent, seq, ts, type, null, data);
    }

    /** An unsequenced event with a fresh id, stamped now. */
    public static Event of(String team, String agent, EventType type, JsonNode data) {
        return new Event(Ids.newEventId(), team, agent, 0, Instant.now(), type, data == null ? Json.MAPPER.createObjectNode() : data);
    }

    /** An unsequenced event with a fresh id, stamped now, whose type and data are those of a typed payload. */
    public static Event of(String team, String agent, EventPayload payload) {
        ObjectNode data = Json.MAPPER.valueToTree(payload);
        return of(team, agent, payload.type(), data);
    }

    /** Convenience: an empty data object to fill. */
    public static ObjectNode newData() {
        return Json.MAPPER.createObjectNode();
    }

    /** The same event with its per-team sequence number. */
    public Event withSeq(long newSeq) {
        return new Event(id, team, agent, newSeq, ts, type, promptId, data);
    }

    /** The same event, emitted in the turn of prompt {@code prompt} ({@code null}: none). */
    public Event withPromptId(String prompt) {
        return new Event(id, team, agent, seq, ts, type, prompt, data);
    }

    /**
     * The prompt an event's JSON belongs to: its envelope's {@code promptId}, or, for an event stored before the
     * envelope carried it, its data's; {@code null} when it has none.
     */
    public static String promptIdOf(JsonNode event) {
        JsonNode p = event.path("promptId");
        if (!p.isTextual()) {
            p = event.path("data").path("promptId");
        }
        return p.isTextual() ? p.asText() : null;
    }

    /** Parses and checks a record value; throws {@link ProtocolException} naming what is wrong. */
    public static Event parse(String json) {
        Event e = Json.read(json, Event.class);
        if (e.type() == null) {
            throw new ProtocolException("event has no \"type\"");
        }
        if (e.team() == null) {
            throw new ProtocolException("event has no \"team\"");
        }
        return e;
    }
}

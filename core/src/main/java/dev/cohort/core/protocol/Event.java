package dev.cohort.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.payload.EventPayload;
import java.time.Instant;

/**
 * An observable event on {@link Topics#EVENTS}: {@code {"id","team","agent","seq","ts","type","data"}}.
 * {@code seq} increases per team; it is assigned by the event store of lead-service when the event is persisted
 * (producers that cannot sequence publish {@code seq = 0}).
 */
public record Event(String id, String team, String agent, long seq, Instant ts, EventType type, JsonNode data) {

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
        return new Event(id, team, agent, newSeq, ts, type, data);
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

package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Map;

/**
 * A message between agents on {@link Topics#LEAD_INBOX} / {@link Topics#TEAMMATE_INBOX}:
 * {@code {"id","team","from","to","type","content","metadata":{…},"ts"}}. {@code from} is always set by the host.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AgentMessage(String id, String team, String from, String to, MessageType type, String content,
        Map<String, Object> metadata, Instant ts) {

    public AgentMessage {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    /** A new message with a fresh id and the current time. */
    public static AgentMessage of(String team, String from, String to, MessageType type, String content,
            Map<String, Object> metadata) {
        return new AgentMessage(Ids.newId(), team, from, to, type, content, metadata, Instant.now());
    }

    /** Parses and checks a record value; throws {@link ProtocolException} naming what is wrong. */
    public static AgentMessage parse(String json) {
        AgentMessage m = Json.read(json, AgentMessage.class);
        if (m.type() == null) {
            throw new ProtocolException("agent message has no \"type\"");
        }
        if (m.team() == null || !Ids.isTeam(m.team())) {
            throw new ProtocolException("agent message has an invalid team \"" + m.team() + "\"");
        }
        if (m.to() == null) {
            throw new ProtocolException("agent message has no \"to\"");
        }
        return m;
    }

    /** The record key on the inbox topic: team id for the lead, {@code <team>/<name>} for a teammate. */
    public String key() {
        return Ids.LEAD.equals(to) ? team : Ids.agentId(team, to);
    }
}

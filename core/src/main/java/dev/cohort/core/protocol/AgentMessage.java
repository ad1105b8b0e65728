package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.payload.MessageMetadata;
import java.time.Instant;
import java.util.Map;

/**
 * A message between agents on {@link Topics#LEAD_INBOX} / {@link Topics#TEAMMATE_INBOX}:
 * {@code {"id","team","from","to","type","content","metadata":{…},"ts"}}. {@code from} is always set by the host.
 * {@code metadata} is a plain JSON object on the wire; its typed form for each message type is a
 * {@link MessageMetadata} record: build with {@link #of(String, String, String, String, MessageMetadata)}, read with
 * {@link #metadataAs(Class)}.
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

    /**
     * A new message with a fresh id and the current time whose type is that of its typed metadata (so the two cannot
     * disagree).
     */
    public static AgentMessage of(String team, String from, String to, String content, MessageMetadata metadata) {
        return of(Ids.newId(), team, from, to, content, metadata, Instant.now());
    }

    /** A message with a given id and time (e.g. derived, so a retried send is the same message) and typed metadata. */
    public static AgentMessage of(String id, String team, String from, String to, String content,
            MessageMetadata metadata, Instant ts) {
        return new AgentMessage(id, team, from, to, metadata.type(), content, MessageMetadata.toMap(metadata), ts);
    }

    /**
     * The metadata as its typed record. Throws {@link ProtocolException} when {@code type} is the metadata of another
     * message type than this message's, or when a value has the wrong kind.
     */
    public <T extends MessageMetadata> T metadataAs(Class<T> type) {
        T typed = MessageMetadata.from(metadata, type);
        if (typed.type() != this.type) {
            throw new ProtocolException("the metadata of a " + typed.type().wire() + " message (" + type.getSimpleName()
                    + ") asked of a " + (this.type == null ? "untyped" : this.type.wire()) + " message " + id);
        }
        return typed;
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

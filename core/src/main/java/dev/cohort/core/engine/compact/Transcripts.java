package dev.cohort.core.engine.compact;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A conversation as JSON Lines, one message per line (the {@link Message} JSON shape), written with one streaming
 * generator: the transcript sits on the compaction path, so it must cost little (L0–L2 target ≤ 5 ms at 200k tokens).
 */
public final class Transcripts {
    private static final JsonFactory FACTORY = new JsonFactory();

    private Transcripts() {
    }

    public static String jsonl(List<Message> messages) {
        long chars = 0;
        for (Message m : messages) {
            chars += m.content() == null ? 16 : m.content().length() + 64;
        }
        StringWriter w = new StringWriter((int) Math.min(Integer.MAX_VALUE - 8, chars + chars / 8));
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
            g.setRootValueSeparator(null);
            for (Message m : messages) {
                g.writeStartObject();
                g.writeStringField("role", m.role().wire());
                if (m.content() != null) {
                    g.writeStringField("content", m.content());
                }
                if (m.hasToolCalls()) {
                    g.writeArrayFieldStart("toolCalls");
                    for (ModelToolCall c : m.toolCalls()) {
                        g.writeStartObject();
                        g.writeStringField("id", c.id());
                        g.writeStringField("name", c.name());
                        g.writeStringField("arguments", c.arguments());
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
                if (m.toolCallId() != null) {
                    g.writeStringField("toolCallId", m.toolCallId());
                }
                if (m.toolName() != null) {
                    g.writeStringField("toolName", m.toolName());
                }
                if (m.error()) {
                    g.writeBooleanField("error", true);
                }
                g.writeEndObject();
                g.writeRaw('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}

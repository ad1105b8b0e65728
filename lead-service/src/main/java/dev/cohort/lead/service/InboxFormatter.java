package dev.cohort.lead.service;

import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.core.protocol.payload.BackgroundDone;
import dev.cohort.core.protocol.payload.MessageMetadata;
import dev.cohort.lead.persistence.InboxRepository.InboxRow;

/**
 * How messages from the lead's inbox read to the model. Background completions use the seed's s13
 * {@code <task_notification>} form, but XML-escaped, with the real status and the reference to the full output
 * (the seed showed 200 characters and dropped the rest); other messages are {@code <message>} elements.
 */
public final class InboxFormatter {
    private InboxFormatter() {
    }

    /** One message as model-visible text. */
    public static String format(InboxRow m) {
        BackgroundDone meta = MessageType.BACKGROUND_DONE.wire().equals(m.type()) ? backgroundDone(m) : null;
        if (meta != null) {
            StringBuilder b = new StringBuilder("<task_notification>\n");
            field(b, "task_id", meta.jobId());
            field(b, "status", meta.status());
            field(b, "exit_code", meta.exitCode());
            field(b, "duration_ms", meta.durationMs());
            field(b, "command", meta.command());
            field(b, "output_ref", meta.outputRef());
            field(b, "summary", m.content());
            return b.append("</task_notification>").toString();
        }
        return "<message from=\"" + escape(m.sender()) + "\" type=\"" + escape(m.type()) + "\">\n" + escape(m.content())
                + "\n</message>";
    }

    /** The typed metadata; metadata of the wrong shape (not written by a tool runner) leaves the plain message form. */
    private static BackgroundDone backgroundDone(InboxRow m) {
        try {
            return MessageMetadata.from(m.metadata(), BackgroundDone.class);
        } catch (ProtocolException e) {
            return null;
        }
    }

    private static void field(StringBuilder b, String name, Object value) {
        if (value != null) {
            b.append("  <").append(name).append('>').append(escape(String.valueOf(value))).append("</").append(name).append(">\n");
        }
    }

    /** XML text escaping, so output cannot close or forge the surrounding elements. */
    public static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}

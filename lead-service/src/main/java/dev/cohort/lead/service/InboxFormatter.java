package dev.cohort.lead.service;

import dev.cohort.lead.persistence.InboxRepository.InboxRow;
import java.util.Map;

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
        Map<String, Object> meta = m.metadata();
        if ("background_done".equals(m.type())) {
            StringBuilder b = new StringBuilder("<task_notification>\n");
            field(b, "task_id", meta.get("jobId"));
            field(b, "status", meta.get("status"));
            field(b, "exit_code", meta.get("exitCode"));
            field(b, "duration_ms", meta.get("durationMs"));
            field(b, "command", meta.get("command"));
            field(b, "output_ref", meta.get("outputRef"));
            field(b, "summary", m.content());
            return b.append("</task_notification>").toString();
        }
        return "<message from=\"" + escape(m.sender()) + "\" type=\"" + escape(m.type()) + "\">\n" + escape(m.content())
                + "\n</message>";
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

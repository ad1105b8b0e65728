package dev.cohort.lead.inbox;

import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.BackgroundDone;
import dev.cohort.core.protocol.payload.MessageMetadata;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.lead.inbox.InboxRepository.InboxRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How messages from the lead's inbox read to the model. Background completions use the seed's
 * {@code <task_notification>} form, but XML-escaped, with the real status and the reference to the full output
 * (the seed showed 200 characters and dropped the rest), one input each; messages from other agents (teammates'
 * {@code message} and {@code result}, a person's message) are core's {@link TeamMessages#element} (quoted, escaped,
 * cut at {@link TeamMessages#INJECT_CAP} with a marker; a {@code result} carries its {@code status}), and all those of
 * one batch are ONE {@code [inbox]} input ({@link TeamMessages#inboxBlock}: one user message per injection).
 */
public final class InboxFormatter {
    private InboxFormatter() {
    }

    /** One message as model-visible text. */
    public static String format(InboxRow m) {
        BackgroundDone meta = MessageType.BACKGROUND_DONE.wire().equals(m.type()) ? backgroundDone(m) : null;
        if (meta != null) {
            StringBuilder b = new StringBuilder(TeamMessages.TASK_NOTIFICATION).append('\n');
            field(b, "task_id", meta.jobId());
            field(b, "status", meta.status());
            field(b, "exit_code", meta.exitCode());
            field(b, "duration_ms", meta.durationMs());
            field(b, "command", meta.command());
            field(b, "output_ref", meta.outputRef());
            field(b, "summary", m.content());
            return b.append("</task_notification>").toString();
        }
        String element = TeamMessages.element(m.id(), m.sender(), m.type(), m.content(), TeamMessages.INJECT_CAP,
                attributes(m));
        String tag = protocolTag(m);
        return tag == null ? element : tag + "\n" + element;
    }

    /**
     * The seed's protocol line, for a message that carries a request id: {@code [plan_approval_request
     * req:<id>] from bob} (and {@code approve=…} for an answer), so the model learns the id it passes to
     * {@code review_plan}; the content follows as quoted data. Null for other messages.
     */
    static String protocolTag(InboxRow m) {
        boolean protocol = MessageType.SHUTDOWN_REQUEST.wire().equals(m.type())
                || MessageType.SHUTDOWN_RESPONSE.wire().equals(m.type())
                || MessageType.PLAN_APPROVAL_REQUEST.wire().equals(m.type())
                || MessageType.PLAN_APPROVAL_RESPONSE.wire().equals(m.type());
        Object req = m.metadata() == null ? null : m.metadata().get("requestId");
        if (!protocol || req == null) {
            return null;
        }
        Object approve = m.metadata().get("approve");
        return "[" + escape(m.type()) + " req:" + escape(String.valueOf(req)) + "] from " + escape(m.sender())
                + (approve == null ? "" : " approve=" + escape(String.valueOf(approve)));
    }

    /** One model input made of inbox messages, and the ids of the messages it contains. */
    public record Input(List<String> ids, String text) {
    }

    /**
     * A batch of inbox messages, oldest first, as model inputs: each background completion its own
     * {@code <task_notification>}, the messages from agents together one {@code [inbox]} block, placed where the
     * first of them was.
     */
    public static List<Input> inputs(List<InboxRow> batch) {
        List<Input> out = new ArrayList<>();
        List<String> blockIds = new ArrayList<>();
        List<String> elements = new ArrayList<>();
        int blockAt = -1;
        for (InboxRow m : batch) {
            if (MessageType.BACKGROUND_DONE.wire().equals(m.type()) && backgroundDone(m) != null) {
                out.add(new Input(List.of(m.id()), format(m)));
            } else {
                if (blockAt < 0) {
                    blockAt = out.size();
                }
                blockIds.add(m.id());
                elements.add(format(m));
            }
        }
        if (blockAt >= 0) {
            out.add(blockAt, new Input(blockIds, TeamMessages.inboxBlock(elements)));
        }
        return out;
    }

    /** A teammate's {@code result} shows how its turn ended ({@code status="budget_exceeded"}, …). */
    private static Map<String, String> attributes(InboxRow m) {
        if (!MessageType.RESULT.wire().equals(m.type())) {
            return Map.of();
        }
        Object status = m.metadata() == null ? null : m.metadata().get("status");
        return status == null ? Map.of() : Map.of("status", String.valueOf(status));
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

    /** XML text escaping, so output cannot close or forge the surrounding elements (core's, for one escaping). */
    public static String escape(String s) {
        return TeamMessages.escape(s);
    }
}

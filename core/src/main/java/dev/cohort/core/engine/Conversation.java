package dev.cohort.core.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Pure operations on a conversation. */
public final class Conversation {
    /** The content of a tool result the repair had to invent. */
    public static final String MISSING_RESULT = "[no result: the call was interrupted before it finished]";

    private Conversation() {
    }

    /**
     * Keeps tool calls and results paired and in order (the seed's {@code repair_message_chain}, corrected): each
     * assistant message with tool calls is followed by exactly one tool message per call, in the calls' order; a
     * missing result is filled with {@link #MISSING_RESULT}; orphan and duplicate tool messages are dropped. Returns
     * the input itself when nothing had to change.
     */
    public static List<Message> repair(List<Message> messages) {
        List<Message> out = null;
        int i = 0;
        int n = messages.size();
        while (i < n) {
            Message m = messages.get(i);
            if (m.role() == Message.Role.TOOL) {
                out = copyUpTo(out, messages, i); // orphan: not right after its assistant message
                i++;
                continue;
            }
            if (out != null) {
                out.add(m);
            }
            i++;
            if (m.role() != Message.Role.ASSISTANT || !m.hasToolCalls()) {
                continue;
            }
            Map<String, Message> results = new HashMap<>();
            int j = i;
            boolean inOrder = true;
            int k = 0;
            while (j < n && messages.get(j).role() == Message.Role.TOOL) {
                Message t = messages.get(j);
                boolean expected = k < m.toolCalls().size() && m.toolCalls().get(k).id().equals(t.toolCallId());
                inOrder &= expected;
                results.putIfAbsent(t.toolCallId(), t);
                j++;
                k++;
            }
            if (inOrder && k == m.toolCalls().size()) {
                if (out != null) {
                    out.addAll(messages.subList(i, j));
                }
                i = j;
                continue;
            }
            out = copyUpTo(out, messages, i);
            for (ModelToolCall c : m.toolCalls()) {
                Message t = results.get(c.id());
                out.add(t != null ? t : Message.tool(c.id(), c.name(), MISSING_RESULT, true));
            }
            i = j;
        }
        return out == null ? messages : out;
    }

    private static List<Message> copyUpTo(List<Message> out, List<Message> src, int end) {
        return out != null ? out : new ArrayList<>(src.subList(0, end));
    }

    /** The calls of the last assistant message that have no result yet (the journal of an interrupted step). */
    public static List<ModelToolCall> pendingCalls(List<Message> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            Message m = messages.get(i);
            if (m.role() == Message.Role.ASSISTANT) {
                if (!m.hasToolCalls()) {
                    return List.of();
                }
                List<String> done = new ArrayList<>();
                for (int j = i + 1; j < messages.size(); j++) {
                    if (messages.get(j).role() == Message.Role.TOOL) {
                        done.add(messages.get(j).toolCallId());
                    }
                }
                return m.toolCalls().stream().filter(c -> !done.contains(c.id())).toList();
            }
        }
        return List.of();
    }
}

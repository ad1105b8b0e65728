package dev.cohort.core.engine.compact;

import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import java.util.List;

/**
 * Token estimates without a tokenizer: ~4 characters per token for Latin text, one token per CJK
 * character (the tutorial counted characters of the Python repr). Used only for what the provider has not measured
 * yet: the engine anchors on the prompt tokens the provider reported for the last call.
 */
public final class Tokens {
    /** Per-message framing the chat format adds (role, separators). */
    static final int MESSAGE_OVERHEAD = 4;

    private Tokens() {
    }

    /** Estimated tokens of a text. */
    public static long of(String s) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        long latin = 0;
        long wide = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x2E80) {
                latin++;
            } else if (!Character.isLowSurrogate(c)) {
                wide++;
            }
        }
        return (latin + 3) / 4 + wide;
    }

    /** Estimated tokens of a message. */
    public static long of(Message m) {
        long t = MESSAGE_OVERHEAD + of(m.content());
        for (ModelToolCall c : m.toolCalls()) {
            t += MESSAGE_OVERHEAD + of(c.name()) + of(c.arguments());
        }
        return t;
    }

    /** Estimated tokens of messages {@code [from, to)}. */
    public static long of(List<Message> msgs, int from, int to) {
        long t = 0;
        for (int i = Math.max(0, from); i < to; i++) {
            t += of(msgs.get(i));
        }
        return t;
    }
}

package dev.cohort.core.engine.compact;

import dev.cohort.core.engine.CompactionSettings;
import dev.cohort.core.engine.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The local compaction layers L0–L2, pure functions over a conversation (CONVENTIONS #7), cheapest first.
 * None of them loses text: whatever leaves the context is first handed to {@link Store} (the agent's
 * {@link dev.cohort.core.engine.TranscriptStore}) and a reference stays in its place.
 * <ul>
 * <li>L0 {@link #persistOversized}: a tool result above {@code maxToolResultTokens} becomes a head+tail preview with
 * a reference to its stored full text; a result already persisted is never wrapped again.</li>
 * <li>L1 {@link #snip}: above {@code snipMaxMessages} the middle is stored as a transcript and replaced by a marker
 * naming it; the turn's request is kept; tool calls and results stay paired.</li>
 * <li>L2 {@link #microCompact}: tool results older than the last {@code keepRecentTurns} assistant turns are shortened
 * to a stub that keeps the reference: a result the model has not seen yet is never touched.</li>
 * </ul>
 */
public final class Layers {
    /** The start of an L0 preview. */
    public static final String PERSISTED = "<persisted-output";
    /** The start of an L2 stub. */
    public static final String ELIDED = "<elided-tool-result";
    private static final Pattern REF = Pattern.compile("ref=\"([^\"]+)\"");

    private Layers() {
    }

    /** Where full texts go; returns the stored name. */
    public interface Store {
        /** Stores one tool result's full text. */
        String toolResult(Message toolMessage);

        /** Stores a transcript of the whole conversation before messages leave it. */
        String transcript(List<Message> conversation);
    }

    /** A layer's output: the conversation (the input itself when nothing changed) and what changed. */
    public record Result(List<Message> messages, int changed, String transcript) {
        public boolean isChanged() {
            return changed > 0;
        }
    }

    /** L0: stores and previews oversized tool results. */
    public static Result persistOversized(List<Message> conv, CompactionSettings s, Store store) {
        List<Message> out = null;
        int changed = 0;
        for (int i = 0; i < conv.size(); i++) {
            Message m = conv.get(i);
            if (m.role() != Message.Role.TOOL || m.content() == null || isReference(m.content())) {
                continue;
            }
            // cheap pre-check: a text under maxToolResultTokens tokens can hold at most 4× that many characters
            if (m.content().length() <= s.maxToolResultTokens() || Tokens.of(m.content()) <= s.maxToolResultTokens()) {
                continue;
            }
            String ref = store.toolResult(m);
            if (out == null) {
                out = new ArrayList<>(conv);
            }
            out.set(i, Message.tool(m.toolCallId(), m.toolName(), preview(m.content(), ref, s.previewChars()),
                    m.error()));
            changed++;
        }
        return new Result(out == null ? conv : out, changed, null);
    }

    /** The L0 preview of {@code text} stored as {@code ref}: head, an omission marker, tail. */
    public static String preview(String text, String ref, int headChars) {
        int tailChars = headChars / 4;
        int head = Math.min(headChars, text.length());
        int tail = Math.min(tailChars, text.length() - head);
        return PERSISTED + " ref=\"" + ref + "\" chars=\"" + text.length() + "\">\n"
                + "The full output (" + text.length() + " characters) is stored as " + ref
                + "; only its beginning and end are shown. Narrow the command (grep, head, an offset) if you need "
                + "more.\n" + text.substring(0, head) + "\n[… " + (text.length() - head - tail) + " characters omitted …]\n"
                + text.substring(text.length() - tail) + "\n</persisted-output>";
    }

    private static boolean isReference(String content) {
        return content.startsWith(PERSISTED) || content.startsWith(ELIDED);
    }

    /** The stored name a preview or stub refers to, or null. */
    public static String refOf(String content) {
        if (content == null || !isReference(content)) {
            return null;
        }
        Matcher m = REF.matcher(content.substring(0, Math.min(content.length(), 400)));
        return m.find() ? m.group(1) : null;
    }

    /** L1: snips the middle of a conversation longer than {@code snipMaxMessages}. */
    public static Result snip(List<Message> conv, CompactionSettings s, String request, Store store) {
        int n = conv.size();
        if (n <= s.snipMaxMessages()) {
            return new Result(conv, 0, null);
        }
        int headEnd = Math.min(s.snipKeepHead(), n);
        while (headEnd < n && conv.get(headEnd).role() == Message.Role.TOOL) {
            headEnd++; // keep an assistant's results with it
        }
        int tailStart = Math.max(headEnd, n - s.snipKeepTail());
        while (tailStart < n && conv.get(tailStart).role() == Message.Role.TOOL) {
            tailStart++; // the tail starts at a user or assistant message, never at an orphan result
        }
        if (tailStart - headEnd <= 1) {
            return new Result(conv, 0, null);
        }
        // the head and the tail stay in the context: only the snipped middle must be stored to lose nothing
        String transcript = store.transcript(conv.subList(headEnd, tailStart));
        List<Message> out = new ArrayList<>(headEnd + (n - tailStart) + 2);
        out.addAll(conv.subList(0, headEnd));
        out.add(Message.user("[" + (tailStart - headEnd) + " earlier messages were snipped to save context; they are "
                + "kept as transcript " + transcript + "]"));
        int req = lastIndexOfRequest(conv, request);
        if (req >= headEnd && req < tailStart) {
            out.add(conv.get(req));
        }
        out.addAll(conv.subList(tailStart, n));
        return new Result(out, tailStart - headEnd, transcript);
    }

    /** L2: shortens tool results older than the last {@code keepRecentTurns} assistant turns. */
    public static Result microCompact(List<Message> conv, CompactionSettings s, Store store) {
        int keep = Math.max(1, s.keepRecentTurns());
        int assistantsAfter = 0;
        int boundary = -1; // results before this index are old enough (and seen: an assistant message follows)
        for (int i = conv.size() - 1; i >= 0; i--) {
            if (conv.get(i).role() == Message.Role.ASSISTANT && ++assistantsAfter == keep) {
                boundary = i;
                break;
            }
        }
        List<Message> out = null;
        int changed = 0;
        for (int i = 0; i < boundary; i++) {
            Message m = conv.get(i);
            if (m.role() != Message.Role.TOOL || m.content() == null || m.content().startsWith(ELIDED)) {
                continue;
            }
            String c = m.content();
            if (c.length() <= s.microCompactMinTokens() || Tokens.of(c) <= s.microCompactMinTokens()) {
                continue;
            }
            String ref = refOf(c);
            if (ref == null) {
                ref = store.toolResult(m);
            }
            if (out == null) {
                out = new ArrayList<>(conv);
            }
            out.set(i, Message.tool(m.toolCallId(), m.toolName(), stub(m, ref), m.error()));
            changed++;
        }
        return new Result(out == null ? conv : out, changed, null);
    }

    private static String stub(Message m, String ref) {
        String c = m.content();
        String body = c.startsWith(PERSISTED) ? c.substring(c.indexOf('\n', c.indexOf('\n') + 1) + 1) : c;
        String first = body.strip();
        int nl = first.indexOf('\n');
        first = nl >= 0 ? first.substring(0, nl) : first;
        first = first.length() > 200 ? first.substring(0, 200) + "…" : first;
        return ELIDED + " ref=\"" + ref + "\">An earlier result of " + m.toolName()
                + " was shortened to save context; its full text is stored as " + ref + ". It began: " + first
                + "</elided-tool-result>";
    }

    /** The index of the last user message equal to {@code request}, or -1. */
    public static int lastIndexOfRequest(List<Message> conv, String request) {
        if (request == null) {
            return -1;
        }
        for (int i = conv.size() - 1; i >= 0; i--) {
            Message m = conv.get(i);
            if (m.role() == Message.Role.USER && request.equals(m.content())) {
                return i;
            }
        }
        return -1;
    }
}

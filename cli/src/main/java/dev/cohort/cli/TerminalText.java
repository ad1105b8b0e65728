package dev.cohort.cli;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/** Text that agents, tools and events wrote, made safe to print: terminal controls are shown, never obeyed. */
final class TerminalText {

    /** What a newline becomes on a line that must stay one line (an approval question, a table cell). */
    static final String NEWLINE = "↵";

    private TerminalText() {
    }

    /**
     * {@code text} for a terminal: C0 controls but newline and tab (ESC, carriage return, backspace, BEL…) and DEL in
     * caret notation ({@code ^[}, {@code ^M}, {@code ^?}); C1 controls (8-bit CSI), bidi overrides and invisible
     * separators as {@code <U+202E>}. A {@code \r\n} line end is a newline. Idempotent; null is the empty string.
     */
    static String safe(String text) {
        return neutralise(text, false);
    }

    /** {@link #safe} on one line: newlines become {@value #NEWLINE}, so the text cannot start a line of its own. */
    static String line(String text) {
        return neutralise(text, true);
    }

    /** Whether the terminal would act on {@code cp} (or hide or reorder text with it) rather than show it. */
    static boolean unsafe(int cp) {
        return cp < 0x20 && cp != '\n' && cp != '\t'
                || cp >= 0x7f && cp <= 0x9f // DEL and C1 (0x9b is an 8-bit CSI)
                || cp == 0x061c || cp == 0x200b || cp == 0x200e || cp == 0x200f // bidi marks, zero-width space
                || cp >= 0x2028 && cp <= 0x202e // line / paragraph separators, bidi embeddings and overrides
                || cp == 0x2060 || cp >= 0x2066 && cp <= 0x206f // word joiner, bidi isolates, deprecated formats
                || cp == 0xfeff; // zero-width no-break space
    }

    private static String neutralise(String text, boolean oneLine) {
        if (text == null) {
            return "";
        }
        StringBuilder b = null;
        int n = text.length();
        for (int i = 0; i < n;) {
            int cp = text.codePointAt(i);
            int len = Character.charCount(cp);
            String shown = null;
            if (cp == '\r' && i + 1 < n && text.charAt(i + 1) == '\n') {
                shown = oneLine ? NEWLINE : "\n";
                len = 2;
            } else if (cp == '\n') {
                shown = oneLine ? NEWLINE : null;
            } else if (unsafe(cp)) {
                shown = cp < 0x20 ? "^" + (char) (cp + 0x40) : cp == 0x7f ? "^?" : String.format(Locale.ROOT, "<U+%04X>", cp);
            }
            if (shown != null && b == null) {
                b = new StringBuilder(n + 16).append(text, 0, i);
            }
            if (b != null) {
                b.append(shown != null ? shown : text.substring(i, i + len));
            }
            i += len;
        }
        return b == null ? text : b.toString();
    }

    /** A copy of {@code node} whose every string (field names included) went through {@link #safe}. */
    static JsonNode safe(JsonNode node) {
        if (node == null) {
            return null;
        }
        if (node.isTextual()) {
            return TextNode.valueOf(safe(node.asText()));
        }
        if (node.isArray()) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            node.forEach(c -> a.add(safe(c)));
            return a;
        }
        if (node.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> f = it.next();
                o.set(safe(f.getKey()), safe(f.getValue()));
            }
            return o;
        }
        return node;
    }

    /** {@code text} shown on one line up to {@code max} characters, and how many characters were left out. */
    record Bounded(String head, int more) {
    }

    /** {@link #line} of {@code text}'s first {@code max} characters (a character pair never split), and the rest's length. */
    static Bounded bounded(String text, int max) {
        String t = text == null ? "" : text;
        if (t.length() <= max) {
            return new Bounded(line(t), 0);
        }
        int end = Character.isHighSurrogate(t.charAt(max - 1)) ? max - 1 : max;
        return new Bounded(line(t.substring(0, end)), t.length() - end);
    }

    /** {@code … 1234 more characters, <how>}: what stands for the part of a text {@link #bounded} left out. */
    static String more(int chars, String how) {
        return "… " + chars + " more character" + (chars == 1 ? "" : "s") + ", " + how;
    }

    /**
     * Pretty JSON for {@code --json}: the same data, but DEL, C1 controls and the characters {@link #unsafe} names
     * are written as {@code \\uXXXX} escapes (JSON already escapes the C0 controls).
     */
    static String json(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final ObjectWriter JSON = Json.MAPPER.writerWithDefaultPrettyPrinter().with(new Escapes());

    /** Jackson's standard escapes plus {@code \\uXXXX} for every character {@link #unsafe} names. */
    private static final class Escapes extends CharacterEscapes {
        private final int[] ascii = standardAsciiEscapesForJSON();

        Escapes() {
            ascii[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return unsafe(ch) ? new SerializedString(String.format(Locale.ROOT, "\\u%04x", ch)) : null;
        }
    }
}

package dev.cohort.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finds a JSON array in a model's free-form answer (the tutorial's regex was broken, and even a greedy
 * {@code \[.*\]} fails on "[a] … [0, 1]"). Scans every {@code [}, matches brackets while skipping strings, and
 * returns the first balanced candidate that parses and that {@code accept} approves.
 */
public final class JsonArrays {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonArrays() {
    }

    /** The first acceptable JSON array in {@code text}. */
    public static Optional<JsonNode> find(String text, Predicate<JsonNode> accept) {
        if (text == null) {
            return Optional.empty();
        }
        for (int start = text.indexOf('['); start >= 0; start = text.indexOf('[', start + 1)) {
            int end = matching(text, start);
            if (end < 0) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(text.substring(start, end + 1));
                if (n != null && n.isArray() && accept.test(n)) {
                    return Optional.of(n);
                }
            } catch (Exception e) {
                // not JSON: try the next bracket
            }
        }
        return Optional.empty();
    }

    private static int matching(String s, int start) {
        int depth = 0;
        boolean inString = false;
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                depth--;
                if (depth == 0) {
                    return c == ']' ? i : -1;
                }
                if (depth < 0) {
                    return -1;
                }
            }
        }
        return -1;
    }
}

package dev.cohort.lead.tasks;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Task ids: a database sequence shown as {@code task_<n>}. Parsing accepts only that form (or the bare number the
 * model sometimes sends), so nothing else ever reaches a query.
 */
public final class TaskIds {
    /** The accepted forms: {@code task_42} or {@code 42}; 18 digits fit a signed 64-bit number. */
    public static final Pattern PATTERN = Pattern.compile("(?:task_)?([0-9]{1,18})");

    private TaskIds() {
    }

    /** {@code task_<n>}. */
    public static String format(long id) {
        return "task_" + id;
    }

    /** The number of a well-formed id; empty when malformed. */
    public static OptionalLong parse(String raw) {
        if (raw == null) {
            return OptionalLong.empty();
        }
        Matcher m = PATTERN.matcher(raw.strip());
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /** The number, or a refusal naming the accepted form. */
    public static long require(String raw) {
        return parse(raw).orElseThrow(() -> TaskRefusal.invalid("invalid task id \"" + abbreviate(raw)
                + "\": must look like task_<number>, e.g. task_1"));
    }

    static String abbreviate(String s) {
        if (s == null) {
            return "null";
        }
        return s.length() <= 40 ? s : s.substring(0, 40) + "…";
    }
}

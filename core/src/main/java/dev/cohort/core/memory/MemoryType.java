package dev.cohort.core.memory;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Optional;

/** The four kinds of memory. */
public enum MemoryType {
    /** Who the user is and what they prefer (indentation, language, tone). */
    USER,
    /** Corrections and guidance the user gave about the agent's work. */
    FEEDBACK,
    /** Facts about the project: decisions, constraints, deadlines. */
    PROJECT,
    /** Where things are: URLs, dashboards, documents. */
    REFERENCE;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a wire name; unknown or missing is empty (the seed did not validate it). */
    public static Optional<MemoryType> parse(String s) {
        if (s == null) {
            return Optional.empty();
        }
        for (MemoryType t : values()) {
            if (t.wire().equals(s.strip().toLowerCase(Locale.ROOT))) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    @JsonCreator
    static MemoryType of(String s) {
        return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown memory type " + s));
    }
}

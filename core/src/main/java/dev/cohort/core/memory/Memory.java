package dev.cohort.core.memory;

import java.util.Objects;

/**
 * One memory (s09): a slugged unique name, a type, a one-line description (for the index and selection) and a
 * Markdown body (injected when selected).
 */
public record Memory(String name, MemoryType type, String description, String body) {
    /** Index lines are one line each: longer descriptions are cut (the body keeps the details). */
    public static final int MAX_DESCRIPTION = 200;
    /** A memory is a note, not a document: 4000 characters bound what one selection can inject. */
    public static final int MAX_BODY = 4000;

    public Memory {
        name = MemoryNames.slug(name);
        Objects.requireNonNull(type, "type");
        description = description == null ? "" : description.strip().replaceAll("\\s+", " ");
        if (description.length() > MAX_DESCRIPTION) {
            description = description.substring(0, MAX_DESCRIPTION);
        }
        body = body == null ? "" : body.strip();
        if (body.length() > MAX_BODY) {
            body = body.substring(0, MAX_BODY);
        }
        if (description.isEmpty() || body.isEmpty()) {
            throw new IllegalArgumentException("a memory needs a description and a body");
        }
    }

    /** The same memory under another (slugged) name. */
    public Memory withName(String n) {
        return new Memory(n, type, description, body);
    }
}

package dev.cohort.core.memory;

import java.time.Instant;
import java.util.Objects;

/**
 * One memory: a slugged unique name, a type, a one-line description (for the index and selection) and a
 * Markdown body (injected when selected), with its provenance: who wrote it and when. A memory is data an agent wrote,
 * never an instruction: the prompt shows it quoted with that provenance ({@link MemoryManager}).
 *
 * @param writtenBy who wrote it and how, e.g. {@code default/lead (memory_write)}; {@code null} when unknown (a
 *                  memory stored before provenance was recorded)
 * @param writtenAt when it was written; {@code null} when unknown
 */
public record Memory(String name, MemoryType type, String description, String body, String writtenBy,
        Instant writtenAt) {
    /** Index lines are one line each: longer descriptions are cut (the body keeps the details). */
    public static final int MAX_DESCRIPTION = 200;
    /** A memory is a note, not a document: 4000 characters bound what one selection can inject. */
    public static final int MAX_BODY = 4000;
    /** Provenance is a label, not a text: 200 characters name any agent and how it wrote. */
    public static final int MAX_WRITTEN_BY = 200;

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
        writtenBy = writtenBy == null || writtenBy.isBlank() ? null : writtenBy.strip().replaceAll("\\s+", " ");
        if (writtenBy != null && writtenBy.length() > MAX_WRITTEN_BY) {
            writtenBy = writtenBy.substring(0, MAX_WRITTEN_BY);
        }
    }

    /** A memory whose provenance is unknown. */
    public Memory(String name, MemoryType type, String description, String body) {
        this(name, type, description, body, null, null);
    }

    /** The same memory under another (slugged) name, with its provenance. */
    public Memory withName(String n) {
        return new Memory(n, type, description, body, writtenBy, writtenAt);
    }

    /** The same memory as written by {@code by} at {@code at}. */
    public Memory withProvenance(String by, Instant at) {
        return new Memory(name, type, description, body, by, at);
    }

    /** The memory without its provenance: what it says, for comparing two memories' content. */
    public Memory content() {
        return writtenBy == null && writtenAt == null ? this : new Memory(name, type, description, body);
    }
}

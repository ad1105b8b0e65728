package dev.cohort.core.memory;

import java.util.List;
import java.util.Optional;

/**
 * A team's memories (s09). lead-service persists them in PostgreSQL; {@link InMemoryMemoryStore} and
 * {@link FileMemoryStore} are simple implementations. Names are already slugged by {@link Memory}.
 * Implementations must be thread-safe (extraction runs off the turn's thread).
 */
public interface MemoryStore {

    /** Every memory, sorted by name. */
    List<Memory> all();

    Optional<Memory> get(String name);

    /** Creates or replaces the memory of that name. */
    void put(Memory memory);

    /** Deletes a memory; false when there was none. */
    boolean delete(String name);

    /**
     * Replaces the whole set at once (consolidation, which has already validated it on a staged copy): afterwards
     * exactly {@code memories} exist, or — on failure — the old set is intact.
     */
    void replaceAll(List<Memory> memories);
}

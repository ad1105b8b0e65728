package dev.cohort.core.memory;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolResult;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A team's memories. lead-service persists them in PostgreSQL; {@link InMemoryMemoryStore} and
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

    /**
     * Applies {@code change} (a tool call's mutation of this store, e.g. {@code memory_write}) at most once per
     * {@code key}, and answers a repeat of the call with the first result. {@code change} reads and
     * writes through the store it is given, which is this store inside the one transaction that also records the
     * result under the key; a successful result is recorded, an error result (nothing changed) is not. A repeat with
     * the same key but another tool or other arguments gets {@link EffectKey#reused} and changes nothing.
     */
    ToolResult once(EffectKey key, Function<MemoryStore, ToolResult> change);

    /**
     * Drops whatever this store keeps in memory of the shared memories, so the next read sees every writer's changes
     * ({@link CachedMemoryStore}; the engine calls it whenever a turn's loop starts). Nothing to drop by default.
     */
    default void invalidate() {
    }
}

package dev.cohort.core.memory;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.EffectRecord;
import dev.cohort.core.tools.ToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;

/**
 * A {@link MemoryStore} in memory (tests, single-process use). The results of keyed tool calls ({@link #once}) are kept
 * for the last {@value #MAX_EFFECTS} calls: a repeat comes from a resumed turn, right after the first call.
 */
public final class InMemoryMemoryStore implements MemoryStore {
    /** Records kept; a resumed turn repeats only its last unsaved calls, so older records are never asked for. */
    static final int MAX_EFFECTS = 10_000;

    private final TreeMap<String, Memory> byName = new TreeMap<>();
    private final Map<UUID, EffectRecord> effects = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, EffectRecord> eldest) {
            return size() > MAX_EFFECTS;
        }
    };

    @Override
    public synchronized List<Memory> all() {
        return List.copyOf(byName.values());
    }

    @Override
    public synchronized Optional<Memory> get(String name) {
        return Optional.ofNullable(byName.get(MemoryNames.slug(name)));
    }

    @Override
    public synchronized void put(Memory memory) {
        byName.put(memory.name(), memory);
    }

    @Override
    public synchronized boolean delete(String name) {
        return byName.remove(MemoryNames.slug(name)) != null;
    }

    @Override
    public synchronized void replaceAll(List<Memory> memories) {
        TreeMap<String, Memory> next = new TreeMap<>();
        memories.forEach(m -> next.put(m.name(), m));
        byName.clear();
        byName.putAll(next);
    }

    /** The change and its record happen under this store's lock, so nothing can come between them. */
    @Override
    public synchronized ToolResult once(EffectKey key, Function<MemoryStore, ToolResult> change) {
        EffectRecord first = effects.get(key.uuid());
        if (first != null) {
            return key.replay(first);
        }
        ToolResult result = change.apply(this);
        if (!result.error()) {
            effects.put(key.uuid(), key.record(result));
        }
        return result;
    }
}

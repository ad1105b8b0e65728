package dev.cohort.core.memory;

import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/** A {@link MemoryStore} in memory (tests, single-process use). */
public final class InMemoryMemoryStore implements MemoryStore {
    private final TreeMap<String, Memory> byName = new TreeMap<>();

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
}

package dev.cohort.core.memory;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolResult;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A {@link MemoryStore} over another that counts the reads of every memory ({@link #all}) and can be made to misbehave:
 * work run inside the next read, after it took the store's content ({@link #duringNextRead}), and writes that are made
 * but reported as failed ({@link #failWrites}). Tests of what reads the store, and how often.
 */
public final class CountingMemoryStore implements MemoryStore {
    private final MemoryStore store;
    /** How many times {@link #all} was called. */
    public final AtomicInteger reads = new AtomicInteger();
    private volatile Runnable duringNextRead;
    private volatile boolean failWrites;

    public CountingMemoryStore(MemoryStore store) {
        this.store = store;
    }

    /** Runs {@code work} inside the next {@link #all}, after the store's content was taken and before it returns. */
    public void duringNextRead(Runnable work) {
        this.duringNextRead = work;
    }

    /** From now on a {@link #put} writes, then throws (as when a commit's answer is lost). */
    public void failWrites() {
        this.failWrites = true;
    }

    @Override
    public List<Memory> all() {
        reads.incrementAndGet();
        List<Memory> read = store.all();
        Runnable work = duringNextRead;
        duringNextRead = null;
        if (work != null) {
            work.run();
        }
        return read;
    }

    @Override
    public Optional<Memory> get(String name) {
        return store.get(name);
    }

    @Override
    public void put(Memory memory) {
        store.put(memory);
        if (failWrites) {
            throw new IllegalStateException("connection lost");
        }
    }

    @Override
    public boolean delete(String name) {
        return store.delete(name);
    }

    @Override
    public void replaceAll(List<Memory> memories) {
        store.replaceAll(memories);
    }

    @Override
    public ToolResult once(EffectKey key, Function<MemoryStore, ToolResult> change) {
        return store.once(key, change);
    }
}

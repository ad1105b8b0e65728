package dev.cohort.core.memory;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolResult;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A team's {@link MemoryStore} that keeps its last {@link #all} in memory, for a host that reads the memories before
 * every model call (the lead: once per round) while they change only now and then.
 * <ul>
 * <li><b>Its own writes</b> ({@link #put}, {@link #delete}, {@link #replaceAll}, {@link #once}: the memory tools and
 * extraction) drop the copy once they return, so the next read sees them.</li>
 * <li><b>Other writers</b> (another process that held the team before, e.g. an extraction that finished there after a
 * handover) are seen after the next {@link #invalidate}: the engine calls it whenever a turn's loop starts or resumes
 * ({@code MemoryProvider.loopStarting}), so a turn reads the store at its first model call and from its copy after
 * that.</li>
 * <li><b>A read racing a write</b> never leaves a stale copy: a copy carries the generation counted before its read,
 * and every write (and {@link #invalidate}) counts one more once it has returned, so a copy read before a write ends is
 * never used after it.</li>
 * </ul>
 * {@link #get} always reads the store (the tools' path, not a hot one). Thread-safe when the store it wraps is.
 */
public final class CachedMemoryStore implements MemoryStore {

    private final MemoryStore store;
    private final AtomicLong generation = new AtomicLong();
    private final AtomicReference<Copy> copy = new AtomicReference<>();

    /** {@code memories} as read while the generation was {@code generation}. */
    private record Copy(long generation, List<Memory> memories) {
    }

    public CachedMemoryStore(MemoryStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    public List<Memory> all() {
        long g = generation.get();
        Copy c = copy.get();
        if (c != null && c.generation() == g) {
            return c.memories();
        }
        List<Memory> read = List.copyOf(store.all());
        if (generation.get() == g) {
            copy.set(new Copy(g, read));
        }
        return read;
    }

    @Override
    public Optional<Memory> get(String name) {
        return store.get(name);
    }

    @Override
    public void put(Memory memory) {
        try {
            store.put(memory);
        } finally {
            invalidate();
        }
    }

    @Override
    public boolean delete(String name) {
        try {
            return store.delete(name);
        } finally {
            invalidate();
        }
    }

    @Override
    public void replaceAll(List<Memory> memories) {
        try {
            store.replaceAll(memories);
        } finally {
            invalidate();
        }
    }

    /** The change runs on the wrapped store's view ({@link MemoryStore#once}); the copy is dropped when it returns. */
    @Override
    public ToolResult once(EffectKey key, Function<MemoryStore, ToolResult> change) {
        try {
            return store.once(key, change);
        } finally {
            invalidate();
        }
    }

    /** The next {@link #all} reads the store again (and a read under way when this is called keeps no copy). */
    @Override
    public void invalidate() {
        generation.incrementAndGet();
        copy.set(null);
    }
}

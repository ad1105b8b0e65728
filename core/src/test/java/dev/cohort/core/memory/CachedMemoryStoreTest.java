package dev.cohort.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolResult;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The copy a {@link CachedMemoryStore} keeps: when it is used, and when it is dropped. */
class CachedMemoryStoreTest {

    private static final Memory STYLE = new Memory("style", MemoryType.FEEDBACK, "answer tersely", "no preamble");
    private static final Memory ONCALL = new Memory("oncall", MemoryType.PROJECT, "Alice is on call", "Page Alice.");

    /** Counts reads; {@code duringRead} runs inside a read, after the store's content was taken. */
    private static final class Counted implements MemoryStore {
        final InMemoryMemoryStore store = new InMemoryMemoryStore();
        final AtomicInteger reads = new AtomicInteger();
        Runnable duringRead = () -> {
        };
        boolean failWrites;

        @Override
        public List<Memory> all() {
            reads.incrementAndGet();
            List<Memory> read = store.all();
            Runnable r = duringRead;
            duringRead = () -> {
            };
            r.run();
            return read;
        }

        @Override
        public Optional<Memory> get(String name) {
            return store.get(name);
        }

        @Override
        public void put(Memory memory) {
            if (failWrites) {
                store.put(memory); // written, but the caller sees a failure (e.g. the commit's answer was lost)
                throw new IllegalStateException("connection lost");
            }
            store.put(memory);
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

    @Test
    void readsAreServedFromTheCopyUntilAWriteThroughItOrAnInvalidate() {
        Counted counted = new Counted();
        counted.store.put(STYLE);
        CachedMemoryStore cache = new CachedMemoryStore(counted);

        assertThat(cache.all()).containsExactly(STYLE);
        assertThat(cache.all()).containsExactly(STYLE);
        assertThat(counted.reads).hasValue(1);

        cache.put(ONCALL);
        assertThat(cache.all()).containsExactly(ONCALL, STYLE);
        assertThat(counted.reads).hasValue(2);

        assertThat(cache.delete("oncall")).isTrue();
        assertThat(cache.all()).containsExactly(STYLE);
        cache.replaceAll(List.of(ONCALL));
        assertThat(cache.all()).containsExactly(ONCALL);
        assertThat(counted.reads).hasValue(4);

        // another writer, straight to the store: not seen until the copy is dropped
        counted.store.put(STYLE);
        assertThat(cache.all()).containsExactly(ONCALL);
        cache.invalidate();
        assertThat(cache.all()).containsExactly(ONCALL, STYLE);
        assertThat(counted.reads).hasValue(5);
    }

    @Test
    void aToolCallsChangeThroughOnceIsSeenByTheNextRead() {
        Counted counted = new Counted();
        CachedMemoryStore cache = new CachedMemoryStore(counted);
        assertThat(cache.all()).isEmpty();

        EffectKey key = EffectKey.of(new dev.cohort.core.tools.ToolCall("call_1", "memory_write",
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()),
                dev.cohort.core.testing.IdentityContext.lead("alpha"));
        ToolResult r = cache.once(key, s -> {
            s.put(ONCALL);
            return ToolResult.ok("saved");
        });

        assertThat(r.error()).isFalse();
        assertThat(cache.all()).containsExactly(ONCALL);
        assertThat(counted.reads).hasValue(2);
    }

    @Test
    void aReadThatAWriteOvertookKeepsNoCopy() {
        Counted counted = new Counted();
        counted.store.put(STYLE);
        CachedMemoryStore cache = new CachedMemoryStore(counted);
        // the write lands after the read took the store's content and before it returns
        counted.duringRead = () -> cache.put(ONCALL);

        assertThat(cache.all()).containsExactly(STYLE); // what the read saw
        assertThat(cache.all()).containsExactly(ONCALL, STYLE); // not the overtaken copy
        assertThat(counted.reads).hasValue(2);
    }

    @Test
    void aWriteThatFailsStillDropsTheCopy() {
        Counted counted = new Counted();
        CachedMemoryStore cache = new CachedMemoryStore(counted);
        assertThat(cache.all()).isEmpty();
        counted.failWrites = true;

        assertThatThrownBy(() -> cache.put(ONCALL)).hasMessage("connection lost");

        assertThat(cache.all()).containsExactly(ONCALL); // it may have been written: read again
    }
}

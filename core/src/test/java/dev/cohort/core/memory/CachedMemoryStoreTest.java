package dev.cohort.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The copy a {@link CachedMemoryStore} keeps: when it is used, and when it is dropped. */
class CachedMemoryStoreTest {

    private static final Memory STYLE = new Memory("style", MemoryType.FEEDBACK, "answer tersely", "no preamble");
    private static final Memory ONCALL = new Memory("oncall", MemoryType.PROJECT, "Alice is on call", "Page Alice.");

    @Test
    void readsAreServedFromTheCopyUntilAWriteThroughItOrAnInvalidate() {
        InMemoryMemoryStore store = new InMemoryMemoryStore();
        store.put(STYLE);
        CountingMemoryStore counted = new CountingMemoryStore(store);
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
        store.put(STYLE);
        assertThat(cache.all()).containsExactly(ONCALL);
        cache.invalidate();
        assertThat(cache.all()).containsExactly(ONCALL, STYLE);
        assertThat(counted.reads).hasValue(5);
    }

    @Test
    void aToolCallsChangeThroughOnceIsSeenByTheNextRead() {
        CountingMemoryStore counted = new CountingMemoryStore(new InMemoryMemoryStore());
        CachedMemoryStore cache = new CachedMemoryStore(counted);
        assertThat(cache.all()).isEmpty();

        EffectKey key = EffectKey.of(new ToolCall("call_1", "memory_write",
                JsonNodeFactory.instance.objectNode()),
                IdentityContext.lead("alpha"));
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
        InMemoryMemoryStore store = new InMemoryMemoryStore();
        store.put(STYLE);
        CountingMemoryStore counted = new CountingMemoryStore(store);
        CachedMemoryStore cache = new CachedMemoryStore(counted);
        // the write lands after the read took the store's content and before it returns
        counted.duringNextRead(() -> cache.put(ONCALL));

        assertThat(cache.all()).containsExactly(STYLE); // what the read saw
        assertThat(cache.all()).containsExactly(ONCALL, STYLE); // not the overtaken copy
        assertThat(counted.reads).hasValue(2);
    }

    @Test
    void aWriteThatFailsStillDropsTheCopy() {
        CountingMemoryStore counted = new CountingMemoryStore(new InMemoryMemoryStore());
        CachedMemoryStore cache = new CachedMemoryStore(counted);
        assertThat(cache.all()).isEmpty();
        counted.failWrites();

        assertThatThrownBy(() -> cache.put(ONCALL)).hasMessage("connection lost");

        assertThat(cache.all()).containsExactly(ONCALL); // it may have been written: read again
    }
}

package dev.cohort.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Event ids ({@link Ids#newEventId}): version-7 UUIDs, unique across threads, ordered by their millisecond. */
class IdsTest {

    @Test
    void eventIdsAreVersion7UuidsCarryingTheirMillisecond() {
        long before = System.currentTimeMillis();
        UUID id = UUID.fromString(Ids.newEventId());
        long after = System.currentTimeMillis();
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(id.getMostSignificantBits() >>> 16).isBetween(before, after);
        assertThat(Event.of("t", "lead", EventType.TURN_STARTED, null).id()).matches(
                "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    }

    @Test
    void eventIdsDrawnOnManyThreadsAtOnceAreAllDistinct() throws Exception {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        int threads = 8;
        int each = 50_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        ids.add(Ids.newEventId());
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(ids).hasSize(threads * each);
    }

    @Test
    void anEventIdOfALaterMillisecondSortsAfterAnEarlierOneAsText() throws Exception {
        String first = Ids.newEventId();
        long ms = UUID.fromString(first).getMostSignificantBits() >>> 16;
        String later;
        do {
            later = Ids.newEventId();
        } while ((UUID.fromString(later).getMostSignificantBits() >>> 16) == ms);
        assertThat(later).isGreaterThan(first);
    }
}

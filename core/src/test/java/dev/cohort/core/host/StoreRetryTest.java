package dev.cohort.core.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The store briefly away is retried in place; a failure of the data is not, and patience is bounded. */
class StoreRetryTest {
    private final List<Long> slept = new ArrayList<>();

    private static RuntimeException down() {
        return new IllegalStateException("cannot store: connection refused", new SQLException("refused", "08001"));
    }

    @Test
    void aStoreThatRefusesConnectionsIsRetriedWithGrowingBackoffUntilTheWorkIsDone() {
        AtomicInteger attempts = new AtomicInteger();
        StoreRetry.run("record", () -> {
            if (attempts.incrementAndGet() < 4) {
                throw down();
            }
        }, Duration.ofMinutes(5), slept::add);
        assertThat(attempts).hasValue(4);
        assertThat(slept).containsExactly(100L, 200L, 400L);
    }

    @Test
    void aFailureOfTheDataIsThrownAtOnce() {
        AtomicInteger attempts = new AtomicInteger();
        RuntimeException bad = new IllegalStateException("x", new SQLException("duplicate key", "23505"));
        assertThatThrownBy(() -> StoreRetry.run("record", () -> {
            attempts.incrementAndGet();
            throw bad;
        }, Duration.ofMinutes(5), slept::add)).isSameAs(bad);
        assertThat(attempts).hasValue(1);
        assertThat(slept).isEmpty();
    }

    @Test
    void aStoreStillAwayAfterThePatienceLetsTheFailureThrough() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> StoreRetry.run("record", () -> {
            attempts.incrementAndGet();
            throw down();
        }, Duration.ZERO, slept::add)).hasMessageContaining("connection refused");
        assertThat(attempts).hasValue(1);
    }
}

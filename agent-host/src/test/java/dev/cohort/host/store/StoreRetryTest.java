package dev.cohort.host.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
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

    @Test
    void onlyFailuresOfTheStoresConnectionOrServerCountAsUnavailable() {
        assertThat(StoreRetry.unavailable(new IllegalStateException("x", new SQLException("refused", "08006")))).isTrue();
        assertThat(StoreRetry.unavailable(new IllegalStateException("x",
                new SQLException("terminating connection due to administrator command", "57P01")))).isTrue();
        assertThat(StoreRetry.unavailable(new IllegalStateException("x",
                new SQLException("Acquisition timeout while waiting for new connection")))).isTrue();
        assertThat(StoreRetry.unavailable(new IllegalStateException("x",
                new SQLException("duplicate key value violates unique constraint", "23505")))).isFalse();
        assertThat(StoreRetry.unavailable(new IllegalStateException("boom"))).isFalse();
    }
}

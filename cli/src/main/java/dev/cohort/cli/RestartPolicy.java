package dev.cohort.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * When {@code cohort up} restarts a service child that exited on its own: exponential backoff from {@code firstDelay},
 * doubling per quick exit up to {@code maxDelay}; a child that had stayed up for {@code stableAfter} starts again from
 * {@code firstDelay}; after {@code maxRestarts} restarts within {@code window} the next exit gives up on the service.
 * A pure function of the service's history; times are read on one monotonic clock (durations since any origin).
 */
record RestartPolicy(Duration firstDelay, Duration maxDelay, Duration stableAfter, int maxRestarts, Duration window) {

    /** 5 restarts in 10 minutes ({@code --max-restarts}, {@code --restart-window}): a service that needs more is broken, not unlucky. */
    static final int DEFAULT_MAX_RESTARTS = 5;
    static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);

    /**
     * 1 s first (a SIGKILLed JVM's port is free at once; the broker and the database are still there), 30 s at most
     * (a crash loop costs little CPU, and a fixed fault is picked up within half a minute), reset after 60 s up (longer
     * than a service's start on a loaded 2-core machine, so a service that crashes right after becoming ready keeps
     * backing off); the bound on restarts as given.
     */
    static RestartPolicy defaults(int maxRestarts, Duration window) {
        return new RestartPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(60), maxRestarts, window);
    }

    RestartPolicy {
        if (firstDelay.isNegative() || firstDelay.isZero() || maxDelay.compareTo(firstDelay) < 0) {
            throw new IllegalArgumentException("backoff delays must be positive, first <= max: " + firstDelay + ", " + maxDelay);
        }
        if (maxRestarts < 0) {
            throw new IllegalArgumentException("max restarts must be 0 or more, not " + maxRestarts);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the restart window must be positive, not " + window);
        }
    }

    /** What one service went through: exits in a row that came too soon, and when it was restarted (within the window). */
    record History(int quickExits, List<Duration> restarts) {
        static final History NONE = new History(0, List.of());

        History {
            restarts = List.copyOf(restarts);
        }
    }

    /** The answer to an unexpected exit. */
    sealed interface Decision permits Restart, GiveUp {
    }

    /** Start it again after {@code delay}; this is restart number {@code restartsInWindow} within the window. */
    record Restart(Duration delay, int restartsInWindow, History next) implements Decision {
    }

    /** Leave it down: it was already restarted {@code restartsInWindow} times within the window. */
    record GiveUp(int restartsInWindow) implements Decision {
    }

    /** The service, started at {@code startedAt}, exited at {@code exitedAt}, after {@code history}. */
    Decision onExit(History history, Duration startedAt, Duration exitedAt) {
        List<Duration> recent = new ArrayList<>();
        for (Duration r : history.restarts()) {
            if (r.compareTo(exitedAt.minus(window)) > 0) {
                recent.add(r);
            }
        }
        if (recent.size() >= maxRestarts) {
            return new GiveUp(recent.size());
        }
        boolean stable = exitedAt.minus(startedAt).compareTo(stableAfter) >= 0;
        int quick = stable ? 0 : history.quickExits();
        recent.add(exitedAt);
        return new Restart(delay(quick), recent.size(), new History(quick + 1, recent));
    }

    /** firstDelay × 2^quickExits, at most maxDelay (no overflow however many). */
    private Duration delay(int quickExits) {
        Duration d = firstDelay;
        for (int i = 0; i < quickExits && d.compareTo(maxDelay) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxDelay) > 0 ? maxDelay : d;
    }
}

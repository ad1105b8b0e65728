package dev.cohort.lead.service;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wake-ups for SSE streams of this replica: "team T now has events up to seq N". Streams always read the events
 * themselves from the store, so a lost or duplicated wake-up can delay a stream by one poll interval but never
 * reorder, drop or repeat an event.
 */
@ApplicationScoped
public class EventHub {

    private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

    /** Announces that the team's events are stored up to {@code seq}. */
    public void announce(String team, long seq) {
        signal(team).raise(seq);
    }

    /** Waits until an event after {@code afterSeq} is announced for the team, or the timeout passes. */
    public void await(String team, long afterSeq, Duration timeout) throws InterruptedException {
        signal(team).await(afterSeq, timeout);
    }

    private Signal signal(String team) {
        return signals.computeIfAbsent(team, t -> new Signal());
    }

    private static final class Signal {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private long latest;

        void raise(long seq) {
            lock.lock();
            try {
                if (seq > latest) {
                    latest = seq;
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void await(long after, Duration timeout) throws InterruptedException {
            long nanos = timeout.toNanos();
            lock.lock();
            try {
                while (latest <= after && nanos > 0) {
                    nanos = changed.awaitNanos(nanos);
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** For tests and diagnostics: the highest announced seq of a team. */
    long latest(String team) {
        Signal s = signals.get(team);
        return s == null ? 0 : s.latest;
    }

    static long toMillis(Duration d) {
        return TimeUnit.NANOSECONDS.toMillis(d.toNanos());
    }
}

package dev.cohort.lead.events;

import dev.cohort.lead.config.LeadConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.TimeUnit;
import java.util.List;

/**
 * Wake-ups and recent events for SSE streams of this replica: "team T now has events up to seq N", and, for events
 * this replica stored itself, the last few of them as written after their commit ({@link Recent}).
 * <p>
 * A stream serves the events after its last seq from {@link #recentAfter} when the buffer holds the very next seq,
 * and reads the store otherwise (a gap: the event was stored by another replica or before a restart, or fell out of
 * the buffer, or its announce has not run yet). Only committed events are put here (the announce runs after the
 * commit), each under its own seq, which the store gives to exactly one event of the team, so an event served from
 * here is the one the store would have returned: a lost or late announce makes a stream read the store or wait one
 * poll interval, but never reorders, drops or repeats an event.
 */
@ApplicationScoped
public class EventHub {

    private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Ring> recent = new ConcurrentHashMap<>();
    /** Kept events per team ({@code cohort.lead.sse-recent}); set once before the bean is used. */
    private int capacity;

    EventHub() {
    }

    /** With a buffer of {@code capacity} events per team (0: none). */
    public EventHub(int capacity) {
        configure(capacity);
    }

    @Inject
    void configure(LeadConfig config) {
        configure(config.sseRecent());
    }

    private void configure(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("cohort.lead.sse-recent must be 0 or more, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * A committed event as an SSE frame carries it.
     *
     * @param seq  its seq in the team
     * @param type its type's wire name (the SSE event name)
     * @param json the whole event as JSON (the SSE data, and the Kafka record's value)
     */
    public record Recent(long seq, String type, String json) {
    }

    /** Announces that the team's events are stored up to {@code seq} (an event of another replica, or not kept). */
    public void announce(String team, long seq) {
        signal(team).raise(seq);
    }

    /** Announces an event this replica stored and committed, and keeps it for the team's streams. */
    public void announce(String team, Recent event) {
        if (capacity > 0) {
            recent.computeIfAbsent(team, t -> new Ring(capacity)).put(event);
        }
        signal(team).raise(event.seq());
    }

    /**
     * The kept events of a team from {@code afterSeq + 1} on, in seq order and without a gap, at most {@code max}; empty
     * when the next one ({@code afterSeq + 1}) is not kept here, so the caller reads the store.
     */
    public List<Recent> recentAfter(String team, long afterSeq, int max) {
        Ring r = recent.get(team);
        return r == null ? List.of() : r.after(afterSeq, max);
    }

    /**
     * Waits until an event after {@code afterSeq} is announced for the team, or the timeout passes; true when one was
     * announced (false: the timeout passed, and a stream polls the store in case a wake-up was lost).
     */
    public boolean await(String team, long afterSeq, Duration timeout) throws InterruptedException {
        return signal(team).await(afterSeq, timeout);
    }

    private Signal signal(String team) {
        return signals.computeIfAbsent(team, t -> new Signal());
    }

    /**
     * The last {@code capacity} kept events of a team by seq: slot {@code seq % capacity}, so events announced out of
     * seq order (two threads committing one after the other and announcing the other way round) land where a reader
     * looks for them, and a slot holds the newest seq that maps to it.
     */
    private static final class Ring {
        private final Recent[] slots;

        Ring(int capacity) {
            slots = new Recent[capacity];
        }

        synchronized void put(Recent e) {
            int i = (int) Math.floorMod(e.seq(), (long) slots.length);
            if (slots[i] == null || slots[i].seq() < e.seq()) {
                slots[i] = e;
            }
        }

        synchronized List<Recent> after(long afterSeq, int max) {
            List<Recent> out = new ArrayList<>();
            for (long s = afterSeq + 1; out.size() < max; s++) {
                Recent e = slots[(int) Math.floorMod(s, (long) slots.length)];
                if (e == null || e.seq() != s) {
                    break;
                }
                out.add(e);
            }
            return out;
        }
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

        boolean await(long after, Duration timeout) throws InterruptedException {
            long nanos = timeout.toNanos();
            lock.lock();
            try {
                while (latest <= after && nanos > 0) {
                    nanos = changed.awaitNanos(nanos);
                }
                return latest > after;
            } finally {
                lock.unlock();
            }
        }
    }

    /** The highest seq announced for a team on this replica (0: none yet). */
    public long latest(String team) {
        Signal s = signals.get(team);
        return s == null ? 0 : s.latest;
    }

    static long toMillis(Duration d) {
        return TimeUnit.NANOSECONDS.toMillis(d.toNanos());
    }
}

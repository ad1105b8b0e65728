package dev.cohort.scheduler.firing;

import dev.cohort.scheduler.jobs.CronExpression;
import dev.cohort.scheduler.jobs.MissedPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/**
 * What to do with a due job at time {@code now}: a pure function, so the missed-firing rules are tested without a
 * database or a clock.
 *
 * <ul>
 * <li>On time (due no more than {@code lateTolerance} ago): fire the due occurrence, move to the next one.</li>
 * <li>Missed, but an occurrence falls inside the tolerance window right now: fire that one (it stands in for the
 * missed ones, whatever the policy).</li>
 * <li>Missed, nothing due now: {@code fire-once} fires one catch-up for the first missed occurrence; {@code skip}
 * fires nothing. Either way the job moves to its next future occurrence; a one-shot job is done.</li>
 * </ul>
 *
 * @param fireFor the occurrence to fire now, or null for none
 * @param catchUp whether the firing is a late catch-up for a missed occurrence
 * @param nextFireAt the job's next occurrence, or null when the job is finished (one-shot) and must be deleted
 * @param missedSince the first missed occurrence, or null when nothing was missed
 */
public record FiringPlan(Instant fireFor, boolean catchUp, Instant nextFireAt, Instant missedSince) {

    /** Decides for one job whose {@code due} occurrence is at or before {@code now}. */
    public static FiringPlan decide(CronExpression cron, ZoneId zone, boolean recurring, MissedPolicy policy, Instant due,
            Instant now, Duration lateTolerance) {
        Instant onTimeFrom = now.minus(lateTolerance);
        if (!due.isBefore(onTimeFrom)) {
            return new FiringPlan(due, false, recurring ? next(cron, due, zone) : null, null);
        }
        // first occurrence at or after onTimeFrom (nextFire is strictly after its argument)
        Optional<Instant> current = cron.nextFire(onTimeFrom.minusNanos(1), zone);
        if (current.isPresent() && !current.get().isAfter(now)) {
            return new FiringPlan(current.get(), false, recurring ? next(cron, current.get(), zone) : null, due);
        }
        Instant future = recurring ? current.orElse(null) : null;
        if (policy == MissedPolicy.FIRE_ONCE) {
            return new FiringPlan(due, true, future, due);
        }
        return new FiringPlan(null, false, future, due);
    }

    private static Instant next(CronExpression cron, Instant after, ZoneId zone) {
        return cron.nextFire(after, zone).orElse(null);
    }

    /** Whether this plan fires something. */
    public boolean fires() {
        return fireFor != null;
    }
}

package dev.cohort.scheduler.firing;

import java.util.concurrent.CompletionStage;

/** Publishes a firing: the prompt (or teammate message) and then the {@code cron_fired} event. */
public interface FiringPublisher {

    /**
     * Completes when the prompt or message is acknowledged by the broker; fails if it was not. The event is best
     * effort and never fails the stage.
     */
    CompletionStage<Void> publish(Firing firing);
}

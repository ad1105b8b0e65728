package dev.cohort.core.protocol.payload;

import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.PromptSource;
import java.time.Instant;

/**
 * The metadata of the {@code message} the scheduler sends a teammate when its cron job fires (a lead gets a prompt
 * with {@code source: cron} instead).
 *
 * @param source    always {@link PromptSource#CRON}: the turn is unattended and never waits for a human
 * @param cronJobId the job that fired
 * @param dueAt     the occurrence fired
 * @param catchUp   whether this is a late catch-up for a missed occurrence
 */
public record CronFiring(String source, String cronJobId, Instant dueAt, boolean catchUp) implements MessageMetadata {

    /** The metadata of a firing of job {@code cronJobId} for occurrence {@code dueAt}. */
    public static CronFiring of(String cronJobId, Instant dueAt, boolean catchUp) {
        return new CronFiring(PromptSource.CRON, cronJobId, dueAt, catchUp);
    }

    @Override
    public MessageType type() {
        return MessageType.MESSAGE;
    }
}

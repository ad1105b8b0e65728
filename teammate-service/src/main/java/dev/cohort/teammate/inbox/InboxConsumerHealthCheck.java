package dev.cohort.teammate.inbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while the consumer of {@code cohort.teammate.inbox} ({@link TeammateInboxPoller}) is polling: its thread is alive and
 * its last poll returned within the last 30 s (a poll returns at least every second). A replica whose consumer died
 * hosts no teammate's next message, so it is taken out of service.
 */
@Readiness
@ApplicationScoped
public class InboxConsumerHealthCheck implements HealthCheck {

    static final Duration WITHIN = Duration.ofSeconds(30);

    @Inject
    TeammateInboxPoller poller;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("teammate inbox consumer").status(poller.polling(WITHIN)).build();
    }
}

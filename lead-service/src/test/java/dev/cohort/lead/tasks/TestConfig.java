package dev.cohort.lead.tasks;

import java.time.Duration;

/** The board's default limits, for unit tests without Quarkus. */
record TestConfig() implements TaskConfig {
    @Override
    public int maxSubjectChars() {
        return 200;
    }

    @Override
    public int maxDescriptionChars() {
        return 8000;
    }

    @Override
    public int maxResultChars() {
        return 8000;
    }

    @Override
    public int maxBlockedBy() {
        return 32;
    }

    @Override
    public int maxTasksPerTeam() {
        return 10000;
    }

    @Override
    public Duration defaultLease() {
        return Duration.ofMinutes(5);
    }

    @Override
    public Duration minLease() {
        return Duration.ofSeconds(1);
    }

    @Override
    public Duration maxLease() {
        return Duration.ofHours(1);
    }

    @Override
    public int maxLeaseTokenChars() {
        return 100;
    }
}

package dev.cohort.lead.protocols;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Team protocol settings ({@code cohort.protocols.*}). */
@ConfigMapping(prefix = "cohort.protocols")
public interface ProtocolConfig {

    /**
     * How long a teammate has to answer a shutdown request before it expires and the teammate is stopped anyway (its
     * tasks released): an idle teammate answers in milliseconds, a working one at its next step boundary, so a minute
     * covers a long model call or tool run; a dead or unhosted teammate never keeps the lead waiting longer.
     */
    @WithDefault("60s")
    Duration shutdownTimeout();

    /**
     * How long a submitted plan waits for a decision before it expires (the teammate is told, still gated, and may
     * submit again): a person may be the reviewer, so hours, not seconds.
     */
    @WithDefault("24h")
    Duration planTimeout();

    /** How often each replica expires due requests (one indexed UPDATE): the deadline is met within this much. */
    @WithDefault("1s")
    Duration sweepInterval();
}

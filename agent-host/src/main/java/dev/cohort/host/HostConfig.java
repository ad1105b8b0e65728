package dev.cohort.host;

import dev.cohort.core.host.HostSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;

/** {@code cohort.host.*}: the shared agent host of this replica (lead-service and teammate-service). */
@ConfigMapping(prefix = "cohort.host")
public interface HostConfig {

    /**
     * Most turns this replica runs at once; woken agents beyond it wait in arrival order for a running turn to end or
     * park (a parked or idle agent holds no slot). A running agent keeps its whole conversation on the heap and calls
     * the model provider, whose rate limit the replica shares: 64 keeps both bounded on a default heap.
     */
    @WithDefault("64")
    int maxRunningTurns();

    /**
     * How often the one sweeper checks parked agents: one query for every approval or protocol request they wait for
     * (answered on another replica, expired) and their deadlines. An input on an agent's inbox wakes it at once.
     */
    @WithDefault("2s")
    Duration sweepInterval();

    /**
     * How long a revoked partition or a shutdown waits for the detached agents to reach a step boundary (their turns
     * stay in progress for the next owner) before the new owner may start. A longer model call or tool run is not
     * waited for: its late save is refused by the new owner's version bump, so waiting longer only delays the hand-over.
     */
    @WithDefault("5s")
    Duration handoverTimeout();

    /**
     * Most sessions of idle agents this replica keeps in memory, so a woken agent skips the adopt and the session open
     * (the least recently parked are dropped first; only for agents whose program allows it: the teammates). As many
     * as the turns that may run at once by default, whose heap is planned for anyway; 0 = a new session at every
     * wake-up.
     */
    @WithDefault("64")
    int keptSessions();

    /** The settings of a host whose replica is {@code instance}. */
    default HostSettings toSettings(String instance) {
        return HostSettings.defaults(instance).withMaxRunningTurns(maxRunningTurns()).withSweepInterval(sweepInterval())
                .withHandoverTimeout(handoverTimeout()).withKeptSessions(keptSessions());
    }

    /** This JVM's instance id: {@code pid@host/random}, recorded as the owner of the agents it adopts. */
    static String newInstanceId() {
        return ManagementFactory.getRuntimeMXBean().getName() + "/"
                + UUID.randomUUID().toString().substring(0, 8);
    }
}

package dev.cohort.teammate.protocols;

import dev.cohort.core.host.AgentKey;

/** The teammates this replica hosts, as the protocols see them: a shutdown request stops a running turn here. */
public interface RunningTurns {

    /** Asks {@code key}'s running turn to stop at its next step; false when this replica runs no turn of it. */
    boolean interrupt(AgentKey key);
}

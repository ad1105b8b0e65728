package dev.cohort.core.host;

import dev.cohort.core.engine.AgentState;

/**
 * A stored agent as its new owner adopted it: the engine state, how it was parked ({@link Park#IDLE} for a row that
 * was working or never parked) and the version the owner's next save must match.
 */
public record AgentRecord(AgentKey key, AgentState state, Park park, long version) {
}

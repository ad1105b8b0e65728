package dev.cohort.core.tools;

/** Who runs a loop: decides the identity prompt, the default tool set and which engine features apply. */
public enum AgentRole {
    /** The team's lead (lead-service). */
    LEAD,
    /** A teammate (teammate-service). */
    TEAMMATE,
    /** A subagent spawned by {@code spawn_subagent}: fresh conversation, file/shell tools only, no nesting. */
    SUBAGENT
}

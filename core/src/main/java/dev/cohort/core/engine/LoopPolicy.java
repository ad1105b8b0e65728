package dev.cohort.core.engine;

/**
 * Which features a loop has. The agent's own turns are {@link #PERSISTENT}: saved after every step (so they resume
 * on any replica), with the inbox, the todo reminder, Stop hooks, memory, the agent's budgets and approvals that park
 * the turn. A subagent's loop is {@link #EPHEMERAL}: it lives inside one tool call of its parent, is never saved,
 * and has none of those (an ask it cannot wait for is a denial).
 */
enum LoopPolicy {
    PERSISTENT,
    EPHEMERAL;

    /** State is saved after every step; a restart resumes the turn. */
    boolean saves() {
        return this == PERSISTENT;
    }

    /** Inbox items are injected before model calls. */
    boolean injectsInbox() {
        return this == PERSISTENT;
    }

    /** The todo reminder, the todo event and the reminder counter. */
    boolean remindsTodos() {
        return this == PERSISTENT;
    }

    /** Stop hooks may force a continuation. */
    boolean runsStopHooks() {
        return this == PERSISTENT;
    }

    /** The memory index and relevant memories are in the prompt, and a completed turn feeds memory extraction. */
    boolean usesMemory() {
        return this == PERSISTENT;
    }

    /** The team context is in the prompt. */
    boolean hasTeamContext() {
        return this == PERSISTENT;
    }

    /** The agent's lifetime usage (and its budget) counts this loop's calls. */
    boolean countsAgentUsage() {
        return this == PERSISTENT;
    }

    /** An ask parks the turn until the approval is answered (an ephemeral loop cannot wait: it is denied). */
    boolean parksOnApproval() {
        return this == PERSISTENT;
    }

    /** The end is announced with {@code turn_completed} and saved. */
    boolean announcesEnd() {
        return this == PERSISTENT;
    }

    /** Todos and loaded skills are carried into an L3 summary. */
    boolean keepsSessionMemoryInSummary() {
        return this == PERSISTENT;
    }
}

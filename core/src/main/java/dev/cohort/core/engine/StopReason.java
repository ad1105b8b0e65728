package dev.cohort.core.engine;

import com.fasterxml.jackson.annotation.JsonValue;

/** Why a turn ended. */
public enum StopReason {
    /** The model answered without tool calls (and no Stop hook forced a continuation). */
    COMPLETED("completed"),
    /** The per-turn model-call cap was reached. */
    MAX_MODEL_CALLS("max_model_calls"),
    /** The stuck guard saw the same call or error too often in a row. */
    STUCK("stuck"),
    /** A token budget (per turn or per agent) was exhausted. */
    BUDGET_EXCEEDED("budget_exceeded"),
    /** The host cancelled the turn. */
    CANCELLED("cancelled"),
    /** The model or the tool infrastructure failed. */
    ERROR("error"),
    /**
     * Not an end: the turn is saved in progress, parked on an approval ({@link AgentState.TurnProgress#waiting()});
     * the host resumes it when the approval is answered. No {@code turn_completed} is emitted.
     */
    PARKED("parked"),
    /**
     * Not an end: the host detached the session ({@link AgentSession#detach()}) and the turn is saved in progress,
     * for this or another replica to resume. No {@code turn_completed} is emitted.
     */
    DETACHED("detached");

    private final String wire;

    StopReason(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    /** {@code true} for {@link #PARKED} and {@link #DETACHED}: the turn did not end and is to be resumed. */
    public boolean suspended() {
        return this == PARKED || this == DETACHED;
    }
}

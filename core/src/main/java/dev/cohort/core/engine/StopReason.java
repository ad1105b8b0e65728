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
    ERROR("error");

    private final String wire;

    StopReason(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }
}

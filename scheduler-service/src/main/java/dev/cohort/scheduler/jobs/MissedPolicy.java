package dev.cohort.scheduler.jobs;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** What a job does about occurrences missed while no scheduler could fire it (Temporal's catch-up policy, reduced). */
public enum MissedPolicy {
    /** Missed occurrences are dropped; the job fires at its next occurrence. A missed one-shot job expires. */
    SKIP("skip"),
    /** At most one catch-up firing for everything missed, then the normal schedule resumes. */
    FIRE_ONCE("fire-once");

    private final String wire;

    MissedPolicy(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    /** Parses the wire name; unknown names throw {@link IllegalArgumentException} listing the valid ones. */
    @JsonCreator
    public static MissedPolicy of(String wire) {
        for (MissedPolicy p : values()) {
            if (p.wire.equals(wire)) {
                return p;
            }
        }
        throw new IllegalArgumentException("missedPolicy: '" + wire + "' is not one of skip, fire-once");
    }
}

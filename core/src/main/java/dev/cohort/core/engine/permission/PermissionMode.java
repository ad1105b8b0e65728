package dev.cohort.core.engine.permission;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** A team's permission mode (ARCHITECTURE §3.4). */
public enum PermissionMode {
    /** Ask on destructive shell commands and on writes outside the workspace. */
    DEFAULT("default"),
    /** Like default, but file writes and edits never ask. */
    ACCEPT_EDITS("accept-edits"),
    /** Read-only: mutating tools are denied; only read-only shell commands run. */
    PLAN("plan"),
    /** Only hard denies apply. */
    BYPASS("bypass"),
    /** Headless: every ask is denied. */
    DENY_ASKS("deny-asks");

    private final String wire;

    PermissionMode(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    @JsonCreator
    public static PermissionMode of(String wire) {
        for (PermissionMode m : values()) {
            if (m.wire.equalsIgnoreCase(wire) || m.name().equalsIgnoreCase(wire)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown permission mode '" + wire
                + "'; use default, accept-edits, plan, bypass or deny-asks");
    }
}

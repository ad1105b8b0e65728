package dev.cohort.lead.approvals;

/** The leads of this replica, as approvals see them: a lead whose turn waits for an answer is woken here. */
public interface ParkedTurns {

    /** Wakes team {@code team}'s lead when this replica hosts it and its turn is parked; false otherwise. */
    boolean wakeIfParked(String team);
}

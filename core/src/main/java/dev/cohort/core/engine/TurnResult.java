package dev.cohort.core.engine;

/**
 * How a turn ended.
 *
 * @param turnId     the turn
 * @param reason     why it ended
 * @param text       the final assistant text, or a sentence saying why it stopped
 * @param modelCalls model calls in the turn
 * @param usage      the turn's usage
 */
public record TurnResult(String turnId, StopReason reason, String text, int modelCalls, Usage usage) {

    /** {@code true} when the turn did not end (parked on an approval, or detached): the host resumes it later. */
    public boolean inProgress() {
        return reason.suspended();
    }
}

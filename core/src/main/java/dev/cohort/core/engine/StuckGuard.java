package dev.cohort.core.engine;

import java.util.Objects;

/**
 * Detects a looping agent (OpenHands-style, beyond the seed): the same tool call with the same arguments several
 * times in a row, or the same error several times in a row. Pure: the counters are a value saved with the turn.
 */
public final class StuckGuard {
    private StuckGuard() {
    }

    /**
     * @param lastCall  signature (name + canonical arguments) of the previous call
     * @param sameCall  how many consecutive calls had that signature
     * @param lastError the previous call's error text, if it failed
     * @param sameError how many consecutive calls failed with that error
     */
    public record State(String lastCall, int sameCall, String lastError, int sameError) {
        public static final State EMPTY = new State(null, 0, null, 0);

        /** The worse of the two repetition counts. */
        public int level() {
            return Math.max(sameCall, sameError);
        }
    }

    /** The state after one more call with {@code signature} whose result was {@code error} (null on success). */
    public static State observe(State s, String signature, String error) {
        int sameCall = Objects.equals(s.lastCall(), signature) ? s.sameCall() + 1 : 1;
        int sameError = error == null ? 0 : Objects.equals(s.lastError(), error) ? s.sameError() + 1 : 1;
        return new State(signature, sameCall, error, sameError);
    }

    /** What to do about {@code s}. */
    public static Verdict verdict(State s, int noticeAt, int endAt) {
        int level = s.level();
        if (level >= endAt) {
            return Verdict.END;
        }
        return level >= noticeAt ? Verdict.NOTICE : Verdict.OK;
    }

    /** The notice injected when the agent repeats itself. */
    public static String notice(State s) {
        if (s.sameError() >= s.sameCall()) {
            return "<notice>The last " + s.sameError() + " tool calls failed with the same error. Repeating them will "
                    + "not help: change your approach, or stop and report what blocks you.</notice>";
        }
        return "<notice>You made the same tool call with the same arguments " + s.sameCall() + " times in a row. It "
                + "will give the same result: change your approach, or stop and report what blocks you.</notice>";
    }

    public enum Verdict {
        OK, NOTICE, END
    }
}

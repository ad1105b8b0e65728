package dev.cohort.core.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Detects a looping agent (OpenHands-style, beyond the seed): the same tool call with the same arguments <em>and the
 * same result</em> several times in a row (a repeated call whose result changes, e.g. polling a build, is progress),
 * or the same error several times in a row. Pure: the counters are a value saved with the turn; the result is kept as
 * a digest, never as text.
 */
public final class StuckGuard {
    private StuckGuard() {
    }

    /**
     * @param lastCall   signature (name + canonical arguments) of the previous call
     * @param sameCall   how many consecutive calls had that signature and the same result
     * @param lastError  the previous call's error text, if it failed
     * @param sameError  how many consecutive calls failed with that error
     * @param lastResult SHA-256 of the previous call's result ({@code null} in states saved before results counted:
     *                   the next call then starts a new run)
     */
    public record State(String lastCall, int sameCall, String lastError, int sameError, String lastResult) {
        public static final State EMPTY = new State(null, 0, null, 0, null);

        /** The worse of the two repetition counts. */
        public int level() {
            return Math.max(sameCall, sameError);
        }
    }

    /**
     * The state after one more call with {@code signature} whose result was {@code error} (null on success), the
     * result's content unknown (every call with this signature counts as the same result).
     */
    public static State observe(State s, String signature, String error) {
        return observe(s, signature, error, error == null ? "" : error);
    }

    /** The state after one more call with {@code signature} that answered {@code result} ({@code error}: it failed). */
    public static State observe(State s, String signature, String error, String result) {
        String digest = digest(result);
        boolean same = Objects.equals(s.lastCall(), signature) && Objects.equals(s.lastResult(), digest);
        int sameCall = same ? s.sameCall() + 1 : 1;
        int sameError = error == null ? 0 : Objects.equals(s.lastError(), error) ? s.sameError() + 1 : 1;
        return new State(signature, sameCall, error, sameError, digest);
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
        return "<notice>You made the same tool call with the same arguments " + s.sameCall() + " times in a row and got "
                + "the same result each time. It will give the same result again: change your approach, or stop and "
                + "report what blocks you.</notice>";
    }

    /**
     * The sentence that ends a stuck turn, naming the call ({@code signature}: name and canonical arguments, cut at
     * {@code 200} characters).
     */
    public static String endText(State s) {
        String call = s.lastCall() == null ? "?" : s.lastCall();
        if (call.length() > 200) {
            call = call.substring(0, 200) + "…";
        }
        if (s.sameError() >= s.sameCall()) {
            return "Stopped: the agent repeated the same error " + s.sameError() + " times in a row (last call: " + call
                    + ").";
        }
        return "Stopped: the agent made the same tool call " + call + " with the same result " + s.sameCall()
                + " times in a row.";
    }

    private static String digest(String result) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest((result == null ? "" : result)
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public enum Verdict {
        OK, NOTICE, END
    }
}

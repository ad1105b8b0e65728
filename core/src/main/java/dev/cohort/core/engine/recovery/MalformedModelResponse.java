package dev.cohort.core.engine.recovery;

/**
 * The provider answered (HTTP 200) but not with a usable chat completion: no choices, a choice without a message, a
 * body the client library could not map. Providers and proxies do this under load or on a content filter, and the
 * next attempt usually succeeds, so it is retried like a 5xx ({@link ModelFailure.Kind#BAD_RESPONSE}); the message
 * names what was wrong rather than the client library's internal exception.
 */
public final class MalformedModelResponse extends RuntimeException {

    public MalformedModelResponse(String what, Throwable cause) {
        super(what, cause);
    }

    /** Wraps a failure of reading a 200 answer; the cause's own text is kept but named as the provider's answer. */
    public static MalformedModelResponse of(Throwable cause) {
        String m = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        if (cause instanceof NullPointerException || cause instanceof ClassCastException
                || cause instanceof IndexOutOfBoundsException) {
            m = "a field the answer must have is missing or of the wrong type (" + cause.getClass().getSimpleName() + ")";
        }
        return new MalformedModelResponse("the model's answer is not a usable chat completion: " + m, cause);
    }
}

package dev.cohort.core.protocol;

/** A message on the wire that cannot be understood: malformed JSON, a missing field or an unknown type. */
public class ProtocolException extends RuntimeException {
    public ProtocolException(String message) {
        super(message);
    }

    public ProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}

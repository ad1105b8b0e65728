package dev.cohort.lead.a2a;

/**
 * A JSON-RPC error of the A2A binding: the spec's code and a message that says what was wrong (never a secret). The
 * codes are JSON-RPC's own ({@code -32700} … {@code -32603}) and A2A's ({@code -32001} … {@code -32009}).
 */
public class A2aError extends RuntimeException {

    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    public static final int TASK_NOT_FOUND = -32001;
    public static final int TASK_NOT_CANCELABLE = -32002;
    public static final int PUSH_NOTIFICATION_NOT_SUPPORTED = -32003;
    public static final int UNSUPPORTED_OPERATION = -32004;
    public static final int CONTENT_TYPE_NOT_SUPPORTED = -32005;
    public static final int EXTENDED_AGENT_CARD_NOT_CONFIGURED = -32007;
    public static final int VERSION_NOT_SUPPORTED = -32009;

    private final int code;

    public A2aError(int code, String message) {
        super(message);
        this.code = code;
    }

    public int code() {
        return code;
    }

    static A2aError invalidParams(String message) {
        return new A2aError(INVALID_PARAMS, message);
    }

    static A2aError taskNotFound(String team, String id) {
        return new A2aError(TASK_NOT_FOUND, "no task \"" + id + "\" in team \"" + team + "\"");
    }
}

package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.MessageType;

/**
 * The metadata of {@code result} (structured): a teammate's turn ended. The message's
 * {@code content} is the summary (the teammate's final answer, or what it managed before it stopped).
 *
 * @param status {@link #COMPLETED}, {@link #MAX_ROUNDS}, {@link #BUDGET_EXCEEDED}, {@link #FAILED},
 *               {@link #INTERRUPTED} or {@link #SHUTDOWN}: the lead can tell a success from a stop
 * @param reason why it stopped, in words (omitted for a plain completion)
 * @param turnId the turn that ended
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TeammateResult(String status, String reason, String turnId) implements MessageMetadata {

    public static final String COMPLETED = "completed";
    public static final String MAX_ROUNDS = "max_rounds";
    public static final String BUDGET_EXCEEDED = "budget_exceeded";
    public static final String FAILED = "failed";
    public static final String INTERRUPTED = "interrupted";
    public static final String SHUTDOWN = "shutdown";

    @Override
    public MessageType type() {
        return MessageType.RESULT;
    }
}

package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * {@code error} from the agent loop: a failure a watcher must see (the turn may go on).
 *
 * @param turnId       the turn, absent outside one
 * @param message      what went wrong, in a sentence
 * @param hook         a failed hook's name
 * @param hookEvent    the hook event it ran for
 * @param blocked      for a hook: whether the tool call was refused
 * @param hookSettings {@code true} when hook settings could not be read
 * @param file         the settings file that could not be read
 * @param transcript   where the conversation was stored (a failed compaction)
 * @param promptId     the prompt the failure concerns (lead hosts)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EngineError(String turnId, String message, String hook, String hookEvent, Boolean blocked,
        Boolean hookSettings, String file, String transcript, String promptId) implements EventPayload {

    public EngineError(String turnId, String message, String hook, String hookEvent, Boolean blocked,
            Boolean hookSettings, String file, String transcript) {
        this(turnId, message, hook, hookEvent, blocked, hookSettings, file, transcript, null);
    }

    public static EngineError of(String turnId, String message) {
        return new EngineError(turnId, message, null, null, null, null, null, null, null);
    }

    /** The same error about a prompt. */
    public EngineError withPromptId(String id) {
        return new EngineError(turnId, message, hook, hookEvent, blocked, hookSettings, file, transcript, id);
    }

    @Override
    public EventType type() {
        return EventType.ERROR;
    }
}

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
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EngineError(String turnId, String message, String hook, String hookEvent, Boolean blocked,
        Boolean hookSettings, String file, String transcript) implements EventPayload {

    public static EngineError of(String turnId, String message) {
        return new EngineError(turnId, message, null, null, null, null, null, null);
    }

    @Override
    public EventType type() {
        return EventType.ERROR;
    }
}

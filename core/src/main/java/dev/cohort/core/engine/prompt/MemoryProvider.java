package dev.cohort.core.engine.prompt;

import dev.cohort.core.engine.Message;
import dev.cohort.core.tools.ToolContext;
import java.util.List;

/** The memory layer's hooks into the prompt (filled by the memory issue); {@link #NONE} has no memories. */
public interface MemoryProvider {
    MemoryProvider NONE = new MemoryProvider() {
    };

    /** The memory index for the stable prefix ("" when none). */
    default String index(ToolContext ctx) {
        return "";
    }

    /** Memories relevant to the conversation, appended per call after the cached prefix ("" when none). */
    default String relevant(List<Message> conversation, ToolContext ctx) {
        return "";
    }

    /**
     * A turn completed normally; {@code turn} holds its messages from the user's request on. Called on the turn's
     * thread: an implementation must hand slow work (LLM extraction) to another thread and return at once.
     */
    default void turnCompleted(List<Message> turn, ToolContext ctx) {
    }
}

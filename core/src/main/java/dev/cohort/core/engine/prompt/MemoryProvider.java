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
     * Both memory parts of one model call's system prompt. The default asks {@link #index} and {@link #relevant}; an
     * implementation that reads a store overrides it to read the store once per call, not once per part.
     */
    default ForCall forCall(List<Message> conversation, ToolContext ctx) {
        return new ForCall(index(ctx), relevant(conversation, ctx));
    }

    /**
     * The memory text of one call's system prompt.
     *
     * @param index    the index for the stable prefix ("" when none)
     * @param relevant the memories selected for this call ("" when none)
     */
    record ForCall(String index, String relevant) {
    }

    /**
     * A turn's loop starts or resumes (its first model call comes next): an implementation that keeps the memories it
     * read drops them here, so each turn sees what other processes wrote since ({@link
     * dev.cohort.core.memory.CachedMemoryStore}). Called on the turn's thread, for loops that use memory.
     */
    default void loopStarting(ToolContext ctx) {
    }

    /**
     * A turn completed normally; {@code turn} holds its messages from the user's request on. Called on the turn's
     * thread: an implementation must hand slow work (LLM extraction) to another thread and return at once.
     */
    default void turnCompleted(List<Message> turn, ToolContext ctx) {
    }
}

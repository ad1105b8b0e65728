package dev.cohort.core.engine.hooks;

import dev.cohort.core.engine.Message;
import dev.cohort.core.tools.ToolContext;
import java.util.List;

/** Runs before the conversation is compacted (fired by the compaction pipeline). */
public interface PreCompactHook extends Hook {
    void beforeCompact(List<Message> conversation, ToolContext ctx);
}

package dev.cohort.core.engine.hooks;

import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.subagent.SubagentRunner.SubagentResult;

/** Runs when a subagent finishes, before its answer returns to the parent. */
public interface SubagentStopHook extends Hook {
    void onSubagentStop(String description, SubagentResult result, ToolContext ctx);
}

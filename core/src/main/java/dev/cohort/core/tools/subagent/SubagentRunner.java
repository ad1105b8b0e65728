package dev.cohort.core.tools.subagent;

import dev.cohort.core.tools.ToolContext;

/** Runs a subagent for {@code spawn_subagent}; implemented by the engine. */
@FunctionalInterface
public interface SubagentRunner {

    /**
     * Runs a fresh conversation on {@code description} with file/shell tools only and returns its final text. Its
     * intermediate messages never reach the parent's conversation; its tool calls pass permissions and hooks.
     */
    SubagentResult run(String description, ToolContext parent);

    /**
     * @param text       the subagent's final answer, or a sentence saying that the cap was hit
     * @param capHit     {@code true} when the model-call cap ended it before a final answer
     * @param modelCalls how many model calls it made
     */
    record SubagentResult(String text, boolean capHit, int modelCalls) {
    }
}

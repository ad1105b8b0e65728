package dev.cohort.core.memory;

/**
 * Memory tunables; hosts fill them from {@code cohort.engine.memory.*}.
 *
 * @param maxSelected             memories injected per user message (the seed's 5)
 * @param maxInjectedChars        cap on the injected bodies (unbounded in the seed; 8000 ≈ 2000 tokens)
 * @param maxIndexChars           cap on the index in the system prompt (consolidation keeps it short anyway)
 * @param recentChars             user text given to the selector, newest kept (the seed's 2000)
 * @param extractionInputChars    turn text given to the extractor, newest first (the seed kept the first 4000)
 * @param consolidateAbove        consolidation runs above this many memories (hysteresis, not "≥ 10 every turn")
 * @param consolidateTarget       … and asks for at most this many
 * @param consolidationInputChars catalogue given to the consolidator; memories beyond it are kept untouched
 * @param selectMaxTokens         output limit of the selection call (an index array is short)
 * @param extractMaxTokens        output limit of the extraction call
 * @param consolidateMaxTokens    output limit of the consolidation call (20 memories in full)
 * @param attempts                attempts of a background memory call on transient failures
 */
public record MemorySettings(int maxSelected, int maxInjectedChars, int maxIndexChars, int recentChars,
        int extractionInputChars, int consolidateAbove, int consolidateTarget, int consolidationInputChars,
        int selectMaxTokens, int extractMaxTokens, int consolidateMaxTokens, int attempts) {

    public static MemorySettings defaults() {
        return new MemorySettings(5, 8000, 6000, 2000, 6000, 30, 20, 32000, 200, 1500, 6000, 3);
    }
}

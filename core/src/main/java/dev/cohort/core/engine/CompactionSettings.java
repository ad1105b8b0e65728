package dev.cohort.core.engine;

import java.util.Map;

/**
 * Context compaction. Sizes are in tokens (estimated from the provider's reported prompt
 * tokens plus ~4 characters per token for what was added since; 1 per CJK character). Hosts fill it from
 * {@code cohort.engine.compaction.*}.
 *
 * @param defaultLimits       the window of a model not listed in {@code models} (128k context / 16k output: the
 *                            common size of current OpenAI-compatible chat models)
 * @param models              per model name: context window and maximum output tokens
 * @param autoCompactRatio    L3 (summary) when the estimate exceeds this share of {@code window − output} (0.8
 *                            leaves room for the next tool results before the provider refuses)
 * @param microCompactRatio   L2 (old tool results shortened) above this share (0.5: below it nothing is touched, so
 *                            the provider's prompt cache keeps hitting)
 * @param maxToolResultTokens L0: a tool result above this is stored in full and replaced by a preview (8000 ≈ the
 *                            tutorial's production 30000 characters)
 * @param previewChars        L0 preview: head characters kept (plus a quarter of that from the tail, where errors
 *                            usually are)
 * @param snipMaxMessages     L1: above this many messages the middle is snipped (the tutorial's 50 is a demo value;
 *                            600 messages only happen in very long autonomous runs)
 * @param snipKeepHead        L1: messages kept at the head (the original task)
 * @param snipKeepTail        L1: messages kept at the tail
 * @param keepRecentTurns     L2: tool results of the last N assistant turns are never shortened (and never a result
 *                            the model has not seen yet); L3 keeps the last N turns verbatim
 * @param microCompactMinTokens L2: results shorter than this are kept (shortening them saves nothing)
 * @param summaryInputRatio   L3: share of the window given to the summariser, filled with the most recent content
 * @param summaryTailRatio    L3: the verbatim tail is cut to this share of the window
 * @param summaryMaxTokens    L3: the summary's output limit (the tutorial's 2000 loses detail on long sessions)
 */
public record CompactionSettings(ModelLimits defaultLimits, Map<String, ModelLimits> models, double autoCompactRatio,
        double microCompactRatio, int maxToolResultTokens, int previewChars, int snipMaxMessages, int snipKeepHead,
        int snipKeepTail, int keepRecentTurns, int microCompactMinTokens, double summaryInputRatio,
        double summaryTailRatio, int summaryMaxTokens) {

    public CompactionSettings {
        models = models == null ? Map.of() : Map.copyOf(models);
        if (snipKeepHead + snipKeepTail >= snipMaxMessages) {
            throw new IllegalArgumentException("snipKeepHead + snipKeepTail must be below snipMaxMessages");
        }
    }

    public static CompactionSettings defaults() {
        return new CompactionSettings(new ModelLimits(128_000, 16_384), Map.of(), 0.8, 0.5, 8000, 2000, 600, 4, 300,
                3, 200, 0.5, 0.2, 4000);
    }

    /** The limits of {@code model} (null = the primary: the default limits unless listed under {@code ""}). */
    public ModelLimits limitsFor(String model) {
        ModelLimits l = models.get(model == null ? "" : model);
        return l != null ? l : defaultLimits;
    }

    public CompactionSettings withModels(Map<String, ModelLimits> m) {
        return new CompactionSettings(defaultLimits, m, autoCompactRatio, microCompactRatio, maxToolResultTokens,
                previewChars, snipMaxMessages, snipKeepHead, snipKeepTail, keepRecentTurns, microCompactMinTokens,
                summaryInputRatio, summaryTailRatio, summaryMaxTokens);
    }

    public CompactionSettings withDefaultLimits(ModelLimits l) {
        return new CompactionSettings(l, models, autoCompactRatio, microCompactRatio, maxToolResultTokens,
                previewChars, snipMaxMessages, snipKeepHead, snipKeepTail, keepRecentTurns, microCompactMinTokens,
                summaryInputRatio, summaryTailRatio, summaryMaxTokens);
    }

    public CompactionSettings withMaxToolResultTokens(int t) {
        return new CompactionSettings(defaultLimits, models, autoCompactRatio, microCompactRatio, t, previewChars,
                snipMaxMessages, snipKeepHead, snipKeepTail, keepRecentTurns, microCompactMinTokens, summaryInputRatio,
                summaryTailRatio, summaryMaxTokens);
    }

    /** The token budget of a prompt on {@code model} with {@code maxOutput} reserved for the answer. */
    public long promptBudget(String model, Integer maxOutput) {
        ModelLimits l = limitsFor(model);
        int out = maxOutput == null ? l.maxOutputTokens() : Math.min(maxOutput, l.maxOutputTokens());
        return Math.max(1, l.contextWindow() - out);
    }

    /** L3's threshold on {@code model}: its own when configured, else the global one. */
    public double autoCompactRatioFor(String model) {
        Double r = limitsFor(model).autoCompactRatio();
        return r != null ? r : autoCompactRatio;
    }

    /** L2's threshold on {@code model}: its own when configured, else the global one. */
    public double microCompactRatioFor(String model) {
        Double r = limitsFor(model).microCompactRatio();
        return r != null ? r : microCompactRatio;
    }

    /**
     * A model's size and, optionally, its own compaction thresholds (a model whose quality drops early in a long
     * context may want to summarise sooner).
     *
     * @param contextWindow     tokens of prompt + output the model accepts
     * @param maxOutputTokens   the largest output limit it accepts (caps the {@code length} escalation)
     * @param autoCompactRatio  this model's L3 threshold, {@code null} = the global one
     * @param microCompactRatio this model's L2 threshold, {@code null} = the global one
     */
    public record ModelLimits(int contextWindow, int maxOutputTokens, Double autoCompactRatio,
            Double microCompactRatio) {
        public ModelLimits(int contextWindow, int maxOutputTokens) {
            this(contextWindow, maxOutputTokens, null, null);
        }
    }
}

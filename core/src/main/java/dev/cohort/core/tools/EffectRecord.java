package dev.cohort.core.tools;

/**
 * The recorded first result of a side-effecting call ({@link EffectKey}), kept by the store that holds the effect,
 * in the same transaction as the effect.
 *
 * @param tool   the tool that was called
 * @param digest the {@link EffectKey#digest()} of that call
 * @param result the text of its (successful) result
 */
public record EffectRecord(String tool, String digest, String result) {
}

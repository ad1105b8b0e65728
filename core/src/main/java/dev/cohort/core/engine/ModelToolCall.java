package dev.cohort.core.engine;

/**
 * A tool call as the model sent it: arguments are the raw JSON string (possibly malformed; the engine validates).
 *
 * @param id        the call id
 * @param name      the tool name (possibly unknown)
 * @param arguments the raw arguments
 */
public record ModelToolCall(String id, String name, String arguments) {
}

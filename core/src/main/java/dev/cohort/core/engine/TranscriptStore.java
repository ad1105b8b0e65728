package dev.cohort.core.engine;

import java.util.Optional;

/**
 * Where an agent's full texts go before compaction drops them from the context: conversation transcripts (written
 * before every summary or snip) and oversized tool results (L0). Entries are write-once: a name that exists is never
 * overwritten. The engine makes names unique itself ({@code transcript-<time>-<uuid>.jsonl},
 * {@code tool-result-<call>-<uuid>.txt}); a host persists them (lead-service: PostgreSQL), outside the workspace.
 */
public interface TranscriptStore {

    /**
     * Stores {@code content} under {@code name} for {@code agentId} ({@code <team>/<name>}); if the name is taken,
     * under a derived unused name. Returns the name used.
     */
    String write(String agentId, String name, String content);

    /** A stored entry. */
    Optional<String> read(String agentId, String name);
}

package dev.cohort.lead;

import com.fasterxml.jackson.databind.JsonNode;

/** Scripted-model rules every lead test needs besides its own. */
public final class ModelRules {
    private ModelRules() {
    }

    /**
     * The memory manager's own requests (memory selection, extraction, consolidation) run after or around turns; these
     * answers say "nothing to remember / select" so tests of other behaviour see no memory traffic.
     */
    public static final String MEMORY_RULE = """
            {"name":"memory-housekeeping","match":{"system":"^You (extract|select|consolidate) memor"},"reply":{"text":"[]"}}""";

    /** True for a recorded request made by the memory manager rather than by a turn. */
    public static boolean isMemoryRequest(JsonNode recorded) {
        JsonNode messages = recorded.path("body").path("messages");
        return messages.size() > 0 && messages.get(0).path("content").asText().matches("(?s)^You (extract|select|consolidate) memor.*");
    }
}

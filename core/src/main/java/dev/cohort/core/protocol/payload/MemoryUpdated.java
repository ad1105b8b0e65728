package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;
import java.util.List;

/**
 * The data of {@code memory_updated}: what the memory manager did to a team's memories after a turn. One record for
 * the three actions; each carries only its own fields (absent ones are omitted):
 * {@code extracted} → {@code created}, {@code updated}; {@code consolidation_refused} → {@code reason},
 * {@code count}; {@code consolidated} → {@code from}, {@code to}.
 *
 * @param action  {@code extracted}, {@code consolidation_refused} or {@code consolidated}
 * @param created names of the memories an extraction created (always present, maybe empty, for {@code extracted})
 * @param updated names of the memories an extraction rewrote (always present, maybe empty, for {@code extracted})
 * @param reason  why a consolidation was refused (the memories are untouched)
 * @param count   how many memories there were when a consolidation was refused
 * @param from    how many memories there were before a consolidation
 * @param to      how many memories there are after a consolidation
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MemoryUpdated(String action, List<String> created, List<String> updated, String reason, Integer count,
        Integer from, Integer to) implements EventPayload {

    public static final String EXTRACTED = "extracted";
    public static final String CONSOLIDATION_REFUSED = "consolidation_refused";
    public static final String CONSOLIDATED = "consolidated";

    public MemoryUpdated {
        created = created == null ? null : List.copyOf(created);
        updated = updated == null ? null : List.copyOf(updated);
    }

    /** An extraction that created and/or rewrote memories. */
    public static MemoryUpdated extracted(List<String> created, List<String> updated) {
        return new MemoryUpdated(EXTRACTED, created, updated, null, null, null, null);
    }

    /** A consolidation whose answer was refused; {@code count} memories stay as they were. */
    public static MemoryUpdated consolidationRefused(String reason, int count) {
        return new MemoryUpdated(CONSOLIDATION_REFUSED, null, null, reason, count, null, null);
    }

    /** A consolidation that replaced {@code from} memories by {@code to}. */
    public static MemoryUpdated consolidated(int from, int to) {
        return new MemoryUpdated(CONSOLIDATED, null, null, null, null, from, to);
    }

    @Override
    public EventType type() {
        return EventType.MEMORY_UPDATED;
    }
}

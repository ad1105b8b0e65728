package dev.cohort.core.engine.prompt;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Caches the stable prefix of one agent's system prompt on its inputs (the tutorial keyed it on a file
 * mtime and missed skill changes). A byte-identical prefix across calls is what lets providers cache the prompt.
 * Thread-safe.
 */
public final class PromptCache {
    private record Entry(PromptInputs inputs, String prompt) {
    }

    private final AtomicReference<Entry> last = new AtomicReference<>();
    private long hits;
    private long misses;

    /** The stable prefix for {@code inputs}, rebuilt only when they changed. */
    public String prefix(PromptInputs inputs) {
        Entry e = last.get();
        if (e != null && e.inputs().equals(inputs)) {
            hits++;
            return e.prompt();
        }
        misses++;
        String p = SystemPrompt.assemble(inputs);
        last.set(new Entry(inputs, p));
        return p;
    }

    /** The prefix plus per-call blocks (relevant memories, reminders), which are never cached. */
    public String forCall(PromptInputs inputs, List<String> perCall) {
        String prefix = prefix(inputs);
        if (perCall == null || perCall.stream().allMatch(s -> s == null || s.isBlank())) {
            return prefix;
        }
        StringBuilder sb = new StringBuilder(prefix);
        for (String s : perCall) {
            if (s != null && !s.isBlank()) {
                sb.append("\n\n").append(s.strip());
            }
        }
        return sb.toString();
    }

    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }
}

package dev.cohort.core.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The conversation a loop works on (the agent's own, saved; or a subagent's, ephemeral) and what the provider last
 * reported of its size. Mutable, owned by one loop at a time.
 */
final class LiveConversation {
    final List<Message> messages;
    /** The prompt size the provider reported for the last call and how many messages it covered; null = unknown. */
    AgentState.ContextStats stats;

    LiveConversation(List<Message> messages, AgentState.ContextStats stats) {
        this.messages = new ArrayList<>(messages);
        this.stats = stats;
    }

    void add(Message m) {
        messages.add(m);
    }

    int size() {
        return messages.size();
    }

    Message last() {
        return messages.isEmpty() ? null : messages.get(messages.size() - 1);
    }

    /** {@code true} when the last message is an assistant answer without tool calls. */
    boolean endsWithFinalAnswer() {
        Message m = last();
        return m != null && m.role() == Message.Role.ASSISTANT && !m.hasToolCalls();
    }

    /** Replaces every message (compaction, repair); the provider's size report no longer applies. */
    void replaceAll(List<Message> next) {
        if (next == messages) {
            return;
        }
        List<Message> copy = List.copyOf(next);
        messages.clear();
        messages.addAll(copy);
        stats = null;
    }

    List<Message> copy() {
        return List.copyOf(messages);
    }
}

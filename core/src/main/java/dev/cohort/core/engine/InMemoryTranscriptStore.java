package dev.cohort.core.engine;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link TranscriptStore} in memory: the engine's default and the tests'. Thread-safe; entries are never replaced. */
public final class InMemoryTranscriptStore implements TranscriptStore {
    private final Map<String, Map<String, String>> byAgent = new ConcurrentHashMap<>();

    @Override
    public String write(String agentId, String name, String content) {
        Map<String, String> m = byAgent.computeIfAbsent(agentId, k -> new ConcurrentHashMap<>());
        String n = name;
        for (int i = 2; m.putIfAbsent(n, content) != null; i++) {
            n = name + "." + i;
        }
        return n;
    }

    @Override
    public Optional<String> read(String agentId, String name) {
        return Optional.ofNullable(byAgent.getOrDefault(agentId, Map.of()).get(name));
    }

    /** The names stored for an agent, sorted. */
    public List<String> names(String agentId) {
        return byAgent.getOrDefault(agentId, Map.of()).keySet().stream().sorted().toList();
    }
}

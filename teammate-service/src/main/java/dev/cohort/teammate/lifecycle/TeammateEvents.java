package dev.cohort.teammate.lifecycle;

import dev.cohort.core.engine.Usage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.payload.TeammatePhase;
import dev.cohort.core.protocol.payload.TeammateSpawned;
import dev.cohort.platform.kafka.KafkaEventSink;
import dev.cohort.teammate.config.TeammateInstance;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.Map;

/** The teammate host's own events ({@code teammate_spawned}, {@code teammate_phase}) on {@code cohort.events}. */
@ApplicationScoped
public class TeammateEvents {

    @Inject
    KafkaEventSink sink;

    @Inject
    TeammateRepository teammates;

    @Inject
    TeammateInstance instance;

    public void spawned(String team, String name, String role, boolean planMode, boolean restarted) {
        sink.emit(Event.of(team, name, new TeammateSpawned(name, role, planMode, restarted, instance.id())));
    }

    /** {@code phase} (with {@code reason}, may be null) and the teammate's usage as saved. */
    public void phase(String team, String name, String phase, String reason) {
        phase(team, name, phase, reason, teammates.usage(team, name));
    }

    /** {@code phase} with the usage the caller has (the saved one), so nothing is read for it. */
    public void phase(String team, String name, String phase, String reason, Usage used) {
        sink.emit(Event.of(team, name, new TeammatePhase(name, phase, reason, null, usage(used), instance.id())));
    }

    static Map<String, Object> usage(Usage u) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("inputTokens", u.inputTokens());
        m.put("outputTokens", u.outputTokens());
        m.put("costUsd", u.costUsd());
        return m;
    }
}

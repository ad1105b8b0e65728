package dev.cohort.teammate.agent;

import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.payload.Spawn;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.host.store.PgInbox;
import dev.cohort.teammate.lifecycle.TeammateEvents;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import dev.cohort.teammate.lifecycle.TeammateRepository.TeammateRow;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * A {@code spawn} (contract §1): a new name creates the teammate (registered active; its agent row is created by the
 * host's adopt at its first wake-up), a shut-down one is restarted (active again, its history kept, the new prompt
 * its next input), a live one is left alone (the lead refuses that spawn; a stray one is logged). The prompt is stored
 * as an inbox item of type {@code spawn}, so the teammate's next turn runs it. Idempotent: a redelivered spawn (same
 * id) stores nothing new; the inbox item is stored before the registry row changes, so a crash between the two is
 * repaired by the redelivery.
 */
@ApplicationScoped
public class SpawnHandler {

    @Inject
    TeammateRepository teammates;

    @Inject
    PgInbox inbox;

    @Inject
    TeammateHost host;

    @Inject
    TeammateEvents events;

    public void onSpawn(AgentMessage m) {
        Spawn spawn = m.metadataAs(Spawn.class);
        String prompt = spawn.prompt() != null && !spawn.prompt().isBlank() ? spawn.prompt() : m.content();
        if (prompt == null || prompt.isBlank()) {
            throw new ProtocolException("spawn " + m.id() + " of " + m.key() + " has no prompt");
        }
        String role = spawn.role() == null || spawn.role().isBlank() ? "teammate" : spawn.role().strip();
        AgentKey key = new AgentKey(m.team(), m.to());
        // the item the first turn runs: the spawn with its prompt as content
        AgentMessage item = new AgentMessage(m.id(), m.team(), m.from() == null ? "lead" : m.from(), m.to(), m.type(),
                prompt, m.metadata(), m.ts());
        TeammateRow row = teammates.find(m.team(), m.to()).orElse(null);
        if (row == null) {
            inbox.insertIfNew(item);
            if (teammates.insert(m.team(), m.to(), role, spawn.planMode(), m.id())) {
                Log.infof("team=%s agent=%s spawn=%s created (role %s)", m.team(), m.to(), m.id(), role);
                events.spawned(m.team(), m.to(), role, spawn.planMode(), false);
            }
            host.wake(key);
        } else if (m.id().equals(row.spawnMessageId())) {
            inbox.insertIfNew(item); // a redelivery: stored once; repairs a crash before the item was stored
            Log.infof("team=%s agent=%s spawn=%s seen before: no-op (redelivery)", m.team(), m.to(), m.id());
            if (row.active()) {
                host.wake(key);
            }
        } else if (row.active()) {
            Log.warnf("team=%s agent=%s spawn=%s ignored: the teammate is live (the lead refuses such a spawn)", m.team(),
                    m.to(), m.id());
        } else {
            inbox.insertIfNew(item);
            if (teammates.restart(m.team(), m.to(), role, spawn.planMode(), m.id())) {
                Log.infof("team=%s agent=%s spawn=%s restarted (was shut down: %s)", m.team(), m.to(), m.id(),
                        row.shutdownReason());
                events.spawned(m.team(), m.to(), role, spawn.planMode(), true);
            }
            host.wake(key);
        }
    }
}

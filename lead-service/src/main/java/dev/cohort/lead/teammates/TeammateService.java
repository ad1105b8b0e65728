package dev.cohort.lead.teammates;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.payload.Spawn;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.EffectRecord;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.lead.budgets.TeamBudgets;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.events.RosterRepository.Counts;
import dev.cohort.lead.events.RosterRepository.RosterRow;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import dev.cohort.lead.store.ToolEffectRepository;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.platform.sql.Sql;
import io.agroal.api.AgroalDataSource;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Optional;

/**
 * The lead's side of starting teammates ({@code spawn_teammate}, contract §1, §5, §7). The sequence of one call:
 * <ol>
 * <li>a call already recorded (a resumed turn repeats it) publishes the same {@code spawn} again (same id: the
 * teammate's inbox dedupes it) and answers the recorded result;</li>
 * <li>a team that used its budget is refused;</li>
 * <li>in one transaction, under the team's roster lock: a live teammate of that name is refused, the limits are
 * checked against the roster, the roster row is written ({@code starting}) and the call's result recorded;</li>
 * <li>then the {@code spawn} goes to {@code cohort.teammate.inbox} (key {@code <team>/<name>}, id = the call's
 * {@link EffectKey#uuid()}). If the broker fails, the turn ends (infrastructure); its resumption repeats the call,
 * which publishes the spawn from step 1.</li>
 * </ol>
 */
@ApplicationScoped
public class TeammateService {

    @Inject
    TeamBudgets teamBudgets;

    @Inject
    AgroalDataSource ds;

    @Inject
    ToolEffectRepository effects;

    @Inject
    AgentRepository agents;

    @Inject
    AgentInboxPublisher publisher;

    /** What a spawn asks for (arguments already validated). */
    public record SpawnRequest(String name, String role, String prompt, boolean planMode) {
    }

    /** Thrown inside the spawn transaction to refuse it: nothing is written. */
    private static final class Refused extends RuntimeException {
        final String rule;

        Refused(String rule, String message) {
            super(message, null, false, false);
            this.rule = rule;
        }
    }

    /** Runs one {@code spawn_teammate} call of the lead of {@code team}; see the class comment for the sequence. */
    public ToolResult spawn(String team, EffectKey key, SpawnRequest r, TeammateLimits.Values limits, TeamBudget budget) {
        Optional<EffectRecord> first = effects.find(key);
        if (first.isPresent()) {
            ToolResult replay = key.replay(first.get());
            if (!replay.error()) {
                publish(team, key, r);
            }
            return replay;
        }
        TeamBudget b = budget.with(teamBudgets.overrides(team));
        Optional<String> over = b.refusal(team, agents.teamUsage(team),
                b.limitsDay() ? teamBudgets.usageToday(team) : null);
        if (over.isPresent()) {
            return ToolResult.error("budget:team", over.get());
        }
        ToolResult result;
        try {
            result = Sql.inTransaction(ds, "spawn teammate " + team + "/" + r.name(), c -> {
                RosterRepository.lockTeam(c, team);
                Optional<RosterRow> row = RosterRepository.find(c, team, r.name());
                if (row.isPresent() && row.get().live()) {
                    throw new Refused("team:already-running", r.name() + " is already running (phase "
                            + row.get().phase() + "); send_message to give it more work");
                }
                Counts n = RosterRepository.counts(c, team);
                boolean restart = row.isPresent();
                if (!restart && n.total() >= limits.maxPerTeam()) {
                    throw new Refused("team:max-per-team", "team " + team + " already has " + n.total()
                            + " teammates, the limit " + TeammateLimits.MAX_PER_TEAM + " is " + limits.maxPerTeam()
                            + ": restart a shut-down teammate by spawning it under its name instead");
                }
                if (n.live() >= limits.maxLivePerTeam()) {
                    throw new Refused("team:max-live-per-team", "team " + team + " has " + n.live()
                            + " live teammates, the limit " + TeammateLimits.MAX_LIVE_PER_TEAM + " is "
                            + limits.maxLivePerTeam() + ": wait for one to finish, or give one more work with send_message");
                }
                RosterRepository.recordSpawn(c, team, r.name(), r.role(), r.planMode());
                ToolResult ok = ToolResult.ok((restart ? "Restarted teammate '" + r.name() + "' (role " + r.role()
                        + ") with this prompt; it keeps its earlier conversation."
                        : "Spawned teammate '" + r.name() + "' (role " + r.role() + ").")
                        + " It works on its own and reports back with a result message; you will be woken when it"
                        + " arrives.");
                if (!ToolEffectRepository.record(c, team, key, ok)) {
                    throw new ToolEffectRepository.AlreadyRecorded(key);
                }
                return ok;
            });
        } catch (Refused e) {
            return ToolResult.error(e.rule, e.getMessage());
        } catch (ToolEffectRepository.AlreadyRecorded e) {
            // a concurrent run of the same call recorded first: it publishes; this answers as it did
            return key.replay(effects.find(key).orElseThrow(() -> new IllegalStateException(e.getMessage())));
        } catch (IllegalStateException e) {
            throw new ToolInfrastructureException("cannot spawn teammate " + r.name() + ": " + e.getMessage(), e);
        }
        publish(team, key, r);
        Log.infof("team=%s agent=lead call=%s teammate %s spawned (role %s, planMode %s)", team, key.callId(), r.name(),
                r.role(), r.planMode());
        return result;
    }

    /** The spawn message of the call, the same each time the call runs (contract §1). */
    static AgentMessage spawnMessage(String team, EffectKey key, SpawnRequest r) {
        return AgentMessage.of(key.uuid().toString(), team, Ids.LEAD, r.name(), r.prompt(),
                new Spawn(r.role(), r.prompt(), r.planMode()), Instant.now());
    }

    private void publish(String team, EffectKey key, SpawnRequest r) {
        try {
            publisher.publish(spawnMessage(team, key, r));
        } catch (IllegalStateException e) {
            throw new ToolInfrastructureException("the spawn of teammate " + r.name() + " is recorded but not sent ("
                    + e.getMessage() + "); the resumed turn sends it again", e);
        }
    }
}

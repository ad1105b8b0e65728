package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.core.protocol.EventType;

/**
 * The data of {@code teammate_phase}: a teammate changed phase. The lead keeps the last one per teammate as the
 * team's roster ({@code GET /api/v1/teams/{team}/agents}).
 *
 * @param name        the teammate
 * @param phase       {@code working}, {@code idle}, {@code waiting_approval}, {@code waiting_reply} or
 *                    {@link #SHUTDOWN}
 * @param reason      why (e.g. {@code idle timeout after PT10M}, {@code budget_exceeded: …}); omitted when plain
 * @param currentTask the board task it holds, if any
 * @param usage       its usage so far ({@code inputTokens}, {@code outputTokens}, {@code costUsd}, …)
 * @param replica     the teammate-service replica hosting it
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TeammatePhase(String name, String phase, String reason, String currentTask, Object usage,
        String replica) implements EventPayload {

    /** The phase of a teammate that stopped: not hosted, its inbox kept until a spawn restarts it. */
    public static final String SHUTDOWN = "shutdown";

    @Override
    public EventType type() {
        return EventType.TEAMMATE_PHASE;
    }
}

package dev.cohort.core.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The one mutable state of a running loop: counters, usage, stuck guard, error recovery, what a parked turn waits
 * for. The loop and its parts change it in place; {@link #progress()} is the saved value
 * ({@link AgentState.TurnProgress}), so there is no second copy to keep in step.
 */
final class TurnState {
    final String turnId;
    final String source;
    final boolean unattended;
    /** The turn's user request (after hooks): compaction never drops it. */
    String request;
    int modelCalls;
    int stopContinuations;
    Usage usage;
    StuckGuard.State stuck;
    AgentState.Recovery recovery;
    AgentState.Wait waiting;
    /** The prompts the turn answers: the one it started with, then those injected into it. */
    final List<String> promptIds = new ArrayList<>();

    TurnState(String turnId, String source, boolean unattended, String request) {
        this.turnId = turnId;
        this.source = source;
        this.unattended = unattended;
        this.request = request;
        this.usage = Usage.ZERO;
        this.stuck = StuckGuard.State.EMPTY;
        this.recovery = AgentState.Recovery.FRESH;
    }

    static TurnState of(AgentState.TurnProgress p) {
        TurnState t = new TurnState(p.turnId(), p.source(), p.unattended(), p.request());
        t.modelCalls = p.modelCalls();
        t.stopContinuations = p.stopContinuations();
        t.usage = p.usage();
        t.stuck = p.stuck();
        t.recovery = p.recovery();
        t.waiting = p.waiting();
        t.promptIds.addAll(p.promptIds());
        return t;
    }

    AgentState.TurnProgress progress() {
        return new AgentState.TurnProgress(turnId, source, unattended, modelCalls, stopContinuations, usage, stuck,
                request, recovery, waiting, promptIds);
    }

    /** The prompt the turn started with, which its events carry; {@code null} when it answers none. */
    String promptId() {
        return promptIds.isEmpty() ? null : promptIds.get(0);
    }

    /** The model in use: the fallback after a switch, else the configured one ({@code null} = the gateway's). */
    String model(EngineSettings s) {
        return recovery.model() != null ? recovery.model() : s.model();
    }

    /** The output limit in use: the raised one after a {@code length} finish, else the configured one. */
    Integer maxOutputTokens(EngineSettings s) {
        return recovery.maxOutputTokens() != null ? recovery.maxOutputTokens() : s.maxOutputTokens();
    }
}

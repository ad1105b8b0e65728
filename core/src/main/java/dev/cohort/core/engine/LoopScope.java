package dev.cohort.core.engine;

import dev.cohort.core.engine.hooks.Hooks;

/**
 * What every part of one loop shares: the engine, the loop's fixed context, its one mutable state, its
 * conversation, its events, its hooks, and the save after a step (a no-op in an ephemeral loop).
 *
 * @param engine the engine (model, tools, settings, sinks)
 * @param ctx    what does not change during the loop
 * @param turn   the loop's mutable state
 * @param conv   the conversation it works on
 * @param events its event emitters
 * @param hooks  the hooks of this turn
 * @param step   saves the state after a step (persistent loops)
 */
record LoopScope(AgentEngine engine, TurnContext ctx, TurnState turn, LiveConversation conv, TurnEvents events,
        Hooks hooks, Runnable step) {
}

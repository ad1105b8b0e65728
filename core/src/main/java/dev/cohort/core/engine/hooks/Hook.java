package dev.cohort.core.engine.hooks;

/**
 * Marker of all hooks: extensions hang on the loop instead of being written into it. A hook implements one
 * of the event interfaces ({@link UserPromptSubmitHook}, {@link PreToolUseHook}, {@link PostToolUseHook},
 * {@link StopHook}, {@link SubagentStopHook}, {@link PreCompactHook}).
 *
 * <p>Where hooks come from: <b>built-in hooks</b> are CDI beans of the services (lead-service collects every bean
 * implementing {@code Hook} at start-up and gives them to its engine); <b>command hooks</b> ({@link CommandHook}) come
 * from the team's settings and the workspace's {@code .cohort/settings.json}, read at every turn start. All of them
 * run in {@link #priority()} order, lower first; hooks of equal priority keep their registration order (the engine's
 * built-in ones, then the team's command hooks, then the workspace's; among CDI beans of equal priority the order is
 * the container's, so give built-in hooks distinct priorities when their order matters). Command hooks have
 * priority {@link CommandHook#PRIORITY}, so built-in hooks with a lower one (the default is 0) run before them.
 */
public interface Hook {
    /** Lower runs first; the default is 0. */
    default int priority() {
        return 0;
    }

    /** How logs and {@code error} events name this hook. */
    default String name() {
        String simple = getClass().getSimpleName();
        return simple.isEmpty() || simple.contains("$$Lambda") || getClass().isSynthetic() ? getClass().getName() : simple;
    }
}

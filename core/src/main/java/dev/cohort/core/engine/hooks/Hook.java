package dev.cohort.core.engine.hooks;

/**
 * Marker of all hooks (s04): extensions hang on the loop instead of being written into it. Built-in hooks are CDI
 * beans in the services, collected into {@link Hooks} and run in {@link #priority()} order (lower first).
 */
public interface Hook {
    default int priority() {
        return 0;
    }
}

package dev.cohort.lead;

import dev.cohort.core.engine.hooks.PreToolUseHook;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Built-in hooks as the lead-service collects them: CDI beans implementing {@code Hook}. They act only on a bash
 * call whose command contains {@link #PROBE}, so other tests never notice them; each records its name per team.
 * Declared so that neither class-name nor declaration order is priority order.
 */
final class ProbeHooks {
    static final String PROBE = "hook-order-probe";
    static final Map<String, List<String>> RAN = new ConcurrentHashMap<>();

    private ProbeHooks() {
    }

    static Optional<String> record(String name, ToolCall call, ToolContext ctx) {
        if ("bash".equals(call.name()) && call.args().path("command").asText().contains(PROBE)) {
            RAN.computeIfAbsent(ctx.team(), t -> new CopyOnWriteArrayList<>()).add(name);
        }
        return Optional.empty();
    }

    @Singleton
    static class AlphaLast implements PreToolUseHook {
        @Override
        public Optional<String> beforeToolUse(ToolCall call, ToolContext ctx) {
            return record("priority 30", call, ctx);
        }

        @Override
        public int priority() {
            return 30;
        }
    }

    @Singleton
    static class BetaFirst implements PreToolUseHook {
        @Override
        public Optional<String> beforeToolUse(ToolCall call, ToolContext ctx) {
            return record("priority -10", call, ctx);
        }

        @Override
        public int priority() {
            return -10;
        }
    }

    @Singleton
    static class GammaMiddle implements PreToolUseHook {
        @Override
        public Optional<String> beforeToolUse(ToolCall call, ToolContext ctx) {
            return record("priority 20", call, ctx);
        }

        @Override
        public int priority() {
            return 20;
        }
    }
}

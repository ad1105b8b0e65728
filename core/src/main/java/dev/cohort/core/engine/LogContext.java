package dev.cohort.core.engine;

import org.jboss.logging.MDC;

/**
 * The logging context (MDC) of the agent code on this thread: {@code team}, {@code agent}, {@code turn}, {@code call}.
 * Hosts set team and agent around an agent's work, the loop the turn, the orchestrator the call; JSON logs carry them
 * as fields ({@code mdc} in quarkus-logging-json's output), next to {@code traceId}/{@code spanId} when tracing is on.
 * Through jboss-logging's {@link MDC}, so core stays framework-free.
 */
public final class LogContext {
    public static final String TEAM = "team";
    public static final String AGENT = "agent";
    public static final String TURN = "turn";
    public static final String CALL = "call";

    private LogContext() {
    }

    /** Sets {@code key} to {@code value} until the scope is closed, which restores the previous value (nesting). */
    public static Scope put(String key, String value) {
        Object previous = MDC.get(key);
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
        return () -> {
            if (previous == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, previous);
            }
        };
    }

    /** Sets team and agent until the scope is closed. */
    public static Scope agent(String team, String agent) {
        Scope t = put(TEAM, team);
        Scope a = put(AGENT, agent);
        return () -> {
            a.close();
            t.close();
        };
    }

    /** A context entry to close (restores what was there before). */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}

package dev.cohort.toolrunner.api;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Stamps when a request's headers arrived (first route, on the event loop), so the runner can time what happens
 * before a tool call reaches {@code ToolService}: body read, bearer check, JSON, hand-off to a worker thread
 * ({@code cohort.toolrunner.bash.phase{phase="request-to-service"}}).
 */
@ApplicationScoped
public class RequestArrival {
    static final String KEY = "cohort.arrived-nanos";

    void install(@Observes Router router) {
        router.route("/internal/v1/tools/*").order(-1000).handler(rc -> {
            rc.put(KEY, System.nanoTime());
            rc.next();
        });
    }

    /** When {@code rc}'s request arrived, or 0. */
    static long of(RoutingContext rc) {
        Object t = rc == null ? null : rc.get(KEY);
        return t instanceof Long l ? l : 0;
    }
}

package dev.cohort.lead.api;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.persistence.EventRepository;
import dev.cohort.lead.persistence.TeamRepository;
import dev.cohort.lead.service.EventHub;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.List;

/**
 * {@code GET /api/v1/teams/{team}/events}: Server-Sent Events. Replays stored events after {@code ?since=} or
 * {@code Last-Event-ID} (the SSE id is the event's seq), then streams live ones. Each stream reads only from the
 * store, in seq order, and remembers the last seq it sent: every event is delivered exactly once and in order
 * on any replica. Kafka wake-ups ({@link EventHub}) make it immediate; a poll interval is the safety net.
 */
@Path("/api/v1/teams/{team}/events")
public class EventsResource {

    @Inject
    TeamRepository teams;

    @Inject
    EventRepository events;

    @Inject
    EventHub hub;

    @Inject
    LeadConfig config;

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Blocking
    public Multi<OutboundSseEvent> stream(@PathParam("team") String team, @QueryParam("since") String since,
            @HeaderParam("Last-Event-ID") String lastEventId, @Context Sse sse) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
        long from = parseSeq(lastEventId != null && !lastEventId.isBlank() ? lastEventId : since);
        return Multi.createFrom().emitter(emitter -> Thread.ofVirtual().name("sse-" + team)
                .start(() -> pump(team, from, emitter, sse)));
    }

    private void pump(String team, long from, MultiEmitter<? super OutboundSseEvent> emitter, Sse sse) {
        long last = from;
        try {
            while (!emitter.isCancelled()) {
                List<Event> batch = events.after(team, last, config.sseBatch());
                for (Event e : batch) {
                    if (emitter.isCancelled()) {
                        return;
                    }
                    emitter.emit(sse.newEventBuilder().id(Long.toString(e.seq())).name(e.type().wire())
                            .mediaType(MediaType.APPLICATION_JSON_TYPE).data(Json.write(e)).build());
                    last = e.seq();
                }
                if (batch.isEmpty()) {
                    hub.await(team, last, config.ssePollInterval());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            emitter.complete();
        } catch (RuntimeException e) {
            Log.warnf("team=%s SSE stream ended: %s", team, e.getMessage());
            emitter.fail(e);
        }
    }

    private static long parseSeq(String s) {
        if (s == null || s.isBlank()) {
            return 0;
        }
        try {
            long v = Long.parseLong(s.strip());
            if (v < 0) {
                throw ApiException.badRequest("since / Last-Event-ID must be a non-negative sequence number, got " + s);
            }
            return v;
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("since / Last-Event-ID must be a sequence number, got \"" + s + "\"");
        }
    }
}

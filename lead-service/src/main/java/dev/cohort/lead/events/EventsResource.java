package dev.cohort.lead.events;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import io.quarkus.logging.Log;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.List;

/**
 * {@code GET /api/v1/teams/{team}/events}: Server-Sent Events. Replays stored events after {@code ?since=} or
 * {@code Last-Event-ID} (the SSE id is the event's seq), then streams live ones. Each stream sends events in seq
 * order without a gap, from the store or, at the live edge, from the events this replica just committed
 * ({@link EventHub#recentAfter}: the same events, without two store reads per event), and remembers the last seq it
 * sent: every event is delivered exactly once and in order on any replica. Wake-ups ({@link EventHub}: local after a
 * commit, Kafka for other replicas) make it immediate; a poll interval is the safety net.
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

    /**
     * Sends the team's events after {@code from}, in seq order, forever. Each pass serves the events that follow the
     * last one sent from the hub's recent events when it holds the very next seq (a stream at the live edge: no store
     * read); otherwise it reads the store when it must: on the first pass (replay), after a read that found events
     * (more may follow), when a seq past the last one sent was announced but is not kept (another replica's event, a
     * gap), and after a wait that timed out (a lost wake-up). Otherwise it waits for the next announce. {@code last}
     * only advances through what was sent, one seq after the other.
     */
    private void pump(String team, long from, MultiEmitter<? super OutboundSseEvent> emitter, Sse sse) {
        long last = from;
        boolean poll = true;
        try {
            while (!emitter.isCancelled()) {
                List<EventHub.Recent> kept = hub.recentAfter(team, last, config.sseBatch());
                if (!kept.isEmpty()) {
                    for (EventHub.Recent e : kept) {
                        if (emitter.isCancelled()) {
                            return;
                        }
                        emitter.emit(frame(sse, e.seq(), e.type(), e.json()));
                        last = e.seq();
                    }
                    poll = false;
                    continue;
                }
                if (poll || hub.latest(team) > last) {
                    List<Event> batch = events.after(team, last, config.sseBatch());
                    for (Event e : batch) {
                        if (emitter.isCancelled()) {
                            return;
                        }
                        emitter.emit(frame(sse, e.seq(), e.type().wire(), Json.write(e)));
                        last = e.seq();
                    }
                    if (!batch.isEmpty()) {
                        poll = true;
                        continue;
                    }
                }
                poll = !hub.await(team, last, config.ssePollInterval());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            emitter.complete();
        } catch (RuntimeException e) {
            Log.warnf("team=%s SSE stream ended: %s", team, e.getMessage());
            emitter.fail(e);
        }
    }

    private static OutboundSseEvent frame(Sse sse, long seq, String type, String json) {
        return sse.newEventBuilder().id(Long.toString(seq)).name(type).mediaType(MediaType.APPLICATION_JSON_TYPE)
                .data(json).build();
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

package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.events.EventHub;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.teams.TeamRepository;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An SSE stream served from the hub's recent events where it can and from the store where it must:
 * events another replica stored (only their wake-up arrives here) and events stored before the stream opened come
 * from the store, the ones this replica committed while the stream follows come from the hub; every event arrives
 * once, in seq order, in the form the store returns, also on resume.
 */
@QuarkusTest
class EventStreamFollowerTest {

    @Inject
    EventRepository repository;

    @Inject
    EventService service;

    @Inject
    EventHub hub;

    @Inject
    TeamRepository teams;

    @TestHTTPResource("/")
    URL base;

    static Event event(String team, String text) {
        // a ts with nanoseconds: the hub's form must still equal the store's (microseconds)
        Instant ts = Instant.parse("2026-12-02T10:00:00.123456789Z");
        return new Event(UUID.randomUUID().toString(), team, "lead", 0, ts, EventType.ASSISTANT_MESSAGE,
                Json.MAPPER.createObjectNode().put("text", text).put("n", 7).set("nested",
                        Json.MAPPER.createObjectNode().put("zeta", 1).put("alpha", "é\n\"")));
    }

    String url(String team) {
        return base.toString() + "api/v1/teams/" + team + "/events";
    }

    @Test
    void aFollowerGetsEveryEventOnceInOrderFromTheStoreAcrossGapsAndFromTheHubAtTheLiveEdge() {
        String team = "sse-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(teams.insert(team, "teams/" + team, "default")).isTrue();
        repository.append(event(team, "one: stored by another replica, no local announce"));
        service.record(event(team, "two"));
        service.record(event(team, "three"));
        assertThat(hub.recentAfter(team, 0, 10)).as("seq 1 is not kept here").isEmpty();
        assertThat(hub.recentAfter(team, 1, 10)).extracting(EventHub.Recent::seq).containsExactly(2L, 3L);

        try (SseClient sse = SseClient.open(url(team), null)) {
            await().atMost(Duration.ofMinutes(1)).until(() -> sse.received().size() >= 3);
            // another replica stores seq 4; its wake-up (Kafka) arrives, then this replica commits 5 and 6
            Event four = repository.append(event(team, "four: another replica's"));
            hub.announce(team, four.seq());
            service.record(event(team, "five"));
            service.record(event(team, "six"));
            await().atMost(Duration.ofMinutes(1)).until(() -> sse.received().size() >= 6);
            assertThat(hub.recentAfter(team, 4, 10)).extracting(EventHub.Recent::seq).containsExactly(5L, 6L);

            assertSameAsTheStore(team, sse.received(), 0);
        }

        try (SseClient resumed = SseClient.open(url(team), "4")) {
            await().atMost(Duration.ofMinutes(1)).until(() -> resumed.received().size() >= 2);
            service.record(event(team, "seven"));
            await().atMost(Duration.ofMinutes(1)).until(() -> resumed.received().size() >= 3);
            assertSameAsTheStore(team, resumed.received(), 4);
        }
    }

    /** The frames are the store's events after {@code after}, each once, in seq order, with the same JSON. */
    void assertSameAsTheStore(String team, List<SseClient.Received> got, long after) {
        List<Event> stored = repository.after(team, after, 100);
        assertThat(got).extracting(SseClient.Received::id)
                .containsExactlyElementsOf(stored.stream().map(e -> Long.toString(e.seq())).toList());
        for (int i = 0; i < stored.size(); i++) {
            assertThat(got.get(i).event()).isEqualTo(stored.get(i).type().wire());
            assertThat(Json.read(got.get(i).data(), JsonNode.class)).as("frame %s", got.get(i).id())
                    .isEqualTo(Json.read(Json.write(stored.get(i)), JsonNode.class));
        }
    }
}

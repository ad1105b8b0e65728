package dev.cohort.lead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.persistence.EventRepository;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The event log's numbering: per team, gap-free, and a redelivered event (same id) stored once. */
@QuarkusTest
class EventLogTest {

    @Inject
    EventRepository events;

    private static Event event(String team, String text) {
        return Event.of(team, "lead", EventType.ASSISTANT_MESSAGE, Json.MAPPER.createObjectNode().put("text", text));
    }

    @Test
    void aRedeliveredEventIsStoredOnceAndLeavesNoGapInTheTeamsSequence() {
        String team = "log-" + UUID.randomUUID().toString().substring(0, 8);
        Event first = events.append(event(team, "one"));
        assertThat(first.seq()).isEqualTo(1);

        Event again = events.append(first.withSeq(0));
        assertThat(again.seq()).as("the stored form is returned").isEqualTo(1);
        assertThat(again.data().path("text").asText()).isEqualTo("one");
        assertThat(events.lastSeq(team)).as("the duplicate did not take a number").isEqualTo(1);

        Event second = events.append(event(team, "two"));
        assertThat(second.seq()).isEqualTo(2);
        assertThat(events.after(team, 0, 10)).extracting(Event::seq).containsExactly(1L, 2L);
    }
}

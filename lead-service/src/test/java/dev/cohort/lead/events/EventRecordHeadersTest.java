package dev.cohort.lead.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import dev.cohort.lead.events.EventHub;
import dev.cohort.lead.events.EventPublisher;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The lead's two consumers of {@code cohort.events}: a record a lead replica published carries its seq and
 * origin as headers, the sequencer skips such a record and the live wake-ups skip this replica's own, both without
 * parsing the JSON, while unsequenced events of other services are still parsed, stored and republished, and another
 * replica's records still wake this replica's streams. Real broker and PostgreSQL; absence is proven by a later
 * record on the same key (same partition, same consumer, so handled after it).
 */
@QuarkusTest
class EventRecordHeadersTest {

    @Inject
    EventRepository store;

    @Inject
    EventHub hub;

    @Inject
    EventPublisher publisher;

    private static String newTeam() {
        return "hdr-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String header(ConsumerRecord<String, String> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void anotherServicesEventIsSequencedAndRepublishedWithItsSeqAndThisReplicaAsHeaders() {
        String team = newTeam();
        Event fired = Event.of(team, "scheduler", EventType.CRON_FIRED, null);
        TestKafka.send(Topics.EVENTS, team, Json.write(fired));

        List<ConsumerRecord<String, String>> seen = TestKafka.readUntil(Topics.EVENTS,
                r -> r.value().contains(fired.id()) && header(r, Topics.EVENTS_HEADER_SEQ) != null, Duration.ofSeconds(60));
        ConsumerRecord<String, String> republished = seen.get(seen.size() - 1);
        Event sequenced = Event.parse(republished.value());
        assertThat(sequenced.id()).isEqualTo(fired.id());
        assertThat(sequenced.seq()).isPositive();
        assertThat(republished.key()).isEqualTo(team);
        assertThat(header(republished, Topics.EVENTS_HEADER_SEQ)).isEqualTo(Long.toString(sequenced.seq()));
        assertThat(header(republished, Topics.EVENTS_HEADER_ORIGIN)).isEqualTo(publisher.origin());
        assertThat(store.after(team, 0, 10)).extracting(Event::id).containsExactly(fired.id());
    }

    @Test
    void theSequencerSkipsARecordCarryingASeqWithoutReadingItsValue() {
        String team = newTeam();
        // an unsequenced event's JSON under a seq header: had the sequencer parsed it, it would have stored it
        Event headered = Event.of(team, "scheduler", EventType.CRON_FIRED, null);
        TestKafka.send(Topics.EVENTS, team, Json.write(headered),
                Map.of(Topics.EVENTS_HEADER_SEQ, "3", Topics.EVENTS_HEADER_ORIGIN, "another-replica"));
        Event plain = Event.of(team, "scheduler", EventType.CRON_FIRED, null);
        TestKafka.send(Topics.EVENTS, team, Json.write(plain));

        await().atMost(Duration.ofSeconds(60)).until(() -> !store.after(team, 0, 10).isEmpty());
        assertThat(store.after(team, 0, 10)).as("only the record without the header was sequenced")
                .extracting(Event::id).containsExactly(plain.id());
    }

    @Test
    void wakeUpsSkipThisReplicasOwnRecordsAndTakeAnotherReplicasSeqFromTheHeaders() {
        String team = newTeam();
        TestKafka.send(Topics.EVENTS, team, "not JSON: this replica's own record is never read",
                Map.of(Topics.EVENTS_HEADER_SEQ, "1000", Topics.EVENTS_HEADER_ORIGIN, publisher.origin()));
        TestKafka.send(Topics.EVENTS, team, "not JSON: the headers say it all",
                Map.of(Topics.EVENTS_HEADER_SEQ, "7", Topics.EVENTS_HEADER_ORIGIN, "another-replica"));

        await().atMost(Duration.ofSeconds(60)).until(() -> hub.latest(team) > 0);
        assertThat(hub.latest(team)).as("another replica's seq, from the header; this replica's own record skipped")
                .isEqualTo(7);

        // a sequenced event without the headers (an older publisher) is still parsed
        Event older = Event.of(team, "lead", EventType.TURN_STARTED, null).withSeq(9);
        TestKafka.send(Topics.EVENTS, team, Json.write(older));
        await().atMost(Duration.ofSeconds(60)).until(() -> hub.latest(team) == 9);
    }

    @Test
    void aPoisonEventGoesToTheDlqWithItsReasonAndTheNextEventIsStillSequenced() {
        String team = newTeam();
        String poison = "{\"team\":\"" + team + "\",\"type\": " + UUID.randomUUID();
        TestKafka.send(Topics.EVENTS, team, poison);
        Event after = Event.of(team, "scheduler", EventType.CRON_FIRED, null);
        TestKafka.send(Topics.EVENTS, team, Json.write(after));

        var dlq = TestKafka.readUntil(Topics.DLQ, r -> poison.equals(r.value()), Duration.ofSeconds(60));
        ConsumerRecord<String, String> dead = dlq.stream().filter(r -> poison.equals(r.value())).findFirst().orElseThrow();
        assertThat(dead.key()).isEqualTo(team);
        assertThat(header(dead, Topics.DLQ_HEADER_REASON)).isNotBlank();
        await().atMost(Duration.ofSeconds(60)).until(() -> !store.after(team, 0, 10).isEmpty());
        assertThat(store.after(team, 0, 10)).extracting(Event::id).containsExactly(after.id());
    }
}

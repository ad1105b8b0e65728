package dev.cohort.lead.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Topics;
import dev.cohort.lead.events.EventPublisher;
import dev.cohort.platform.kafka.RecordSender;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

/**
 * {@link EventPublisher} does not wait for the broker (events are published without blocking the
 * loop). The sender here holds every record and acknowledges nothing until the test says so — the state of a broker
 * that is down or slow — so "publish returned while unacknowledged" is a fact, not a race.
 */
class EventPublisherTest {

    /** A record handed to the sender, with the stage the broker would complete. */
    record Held(String topic, String key, String value, Headers headers, CompletableFuture<Void> ack) {
    }

    /** A sender whose broker never answers by itself: records wait here for the test to complete them. */
    static final class SilentSender implements RecordSender {
        final List<Held> held = new ArrayList<>();
        RuntimeException refuse;

        @Override
        public CompletableFuture<Void> send(String topic, String key, String value, Headers headers) {
            if (refuse != null) {
                throw refuse;
            }
            Held h = new Held(topic, key, value, headers, new CompletableFuture<>());
            held.add(h);
            return h.ack();
        }
    }

    private static Event event(String team, long seq) {
        return Event.of(team, "lead", EventType.TURN_STARTED, null).withSeq(seq);
    }

    @Test
    void publishReturnsWhileTheBrokerHasNotAcknowledgedAndReportsTheAckLater() {
        SilentSender sender = new SilentSender();
        EventPublisher publisher = new EventPublisher(sender);
        Event e = event("quiet", 7);

        CompletionStage<Boolean> acked = publisher.publish(e);

        // the call is back, the record is handed to the producer, and nobody has acknowledged it
        assertThat(acked.toCompletableFuture()).isNotDone();
        assertThat(sender.held).hasSize(1);
        Held sent = sender.held.get(0);
        assertThat(Event.parse(sent.value())).isEqualTo(e);
        assertThat(sent.topic()).isEqualTo(Topics.EVENTS);
        assertThat(sent.key()).as("keyed by team, so one team's events stay in order").isEqualTo("quiet");
        assertThat(new String(sent.headers().lastHeader(Topics.EVENTS_HEADER_SEQ).value(), StandardCharsets.US_ASCII))
                .isEqualTo("7");
        assertThat(new String(sent.headers().lastHeader(Topics.EVENTS_HEADER_ORIGIN).value(), StandardCharsets.UTF_8))
                .isEqualTo(publisher.origin());

        // a second event of the same turn does not wait for the first one either
        assertThat(publisher.publish(event("quiet", 8)).toCompletableFuture()).isNotDone();
        assertThat(sender.held).hasSize(2);

        sent.ack().complete(null);
        assertThat(acked.toCompletableFuture()).isCompletedWithValue(true);
    }

    @Test
    void aRefusalByTheBrokerIsReportedAsFalseAndNeverReachesTheCaller() {
        SilentSender sender = new SilentSender();
        CompletionStage<Boolean> acked = new EventPublisher(sender).publish(event("down", 3));

        sender.held.get(0).ack().completeExceptionally(new IllegalStateException("broker unreachable"));

        assertThat(acked.toCompletableFuture()).isCompletedWithValue(false);
    }

    @Test
    void aSenderThatRefusesTheHandOffDoesNotThrowIntoTheLoop() {
        SilentSender sender = new SilentSender();
        sender.refuse = new IllegalStateException("producer closed");

        CompletionStage<Boolean> acked = new EventPublisher(sender).publish(event("full", 9));

        assertThat(acked.toCompletableFuture()).isCompletedWithValue(false);
        assertThat(sender.held).isEmpty();
    }

    @Test
    void anUnsequencedEventCarriesNoHeaders() {
        SilentSender sender = new SilentSender();
        new EventPublisher(sender).publish(Event.of("t", "lead", EventType.TURN_STARTED, null));
        assertThat(sender.held.get(0).headers()).isNull();
    }
}

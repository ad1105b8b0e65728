package dev.cohort.lead.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/**
 * {@link EventPublisher} does not wait for the broker (issue #12 item 4: events are published without blocking the
 * loop). The channel here holds every message and acknowledges nothing until the test says so — the state of a
 * broker that is down or slow — so "publish returned while unacknowledged" is a fact, not a race.
 */
class EventPublisherTest {

    /** An outgoing channel whose broker never answers by itself: messages wait here for {@code ack}/{@code nack}. */
    static final class SilentChannel implements Emitter<String> {
        final List<Message<? extends String>> held = new ArrayList<>();
        RuntimeException refuse;

        @Override
        public CompletionStage<Void> send(String payload) {
            throw new UnsupportedOperationException("EventPublisher sends messages, with their key");
        }

        @Override
        public <M extends Message<? extends String>> void send(M msg) {
            if (refuse != null) {
                throw refuse;
            }
            held.add(msg);
        }

        @Override
        public void complete() {
        }

        @Override
        public void error(Exception e) {
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean hasRequests() {
            return true;
        }
    }

    private static Event event(String team, long seq) {
        return Event.of(team, "lead", EventType.TURN_STARTED, null).withSeq(seq);
    }

    @Test
    void publishReturnsWhileTheBrokerHasNotAcknowledgedAndReportsTheAckLater() {
        SilentChannel channel = new SilentChannel();
        EventPublisher publisher = new EventPublisher(channel);
        Event e = event("quiet", 7);

        CompletionStage<Boolean> acked = publisher.publish(e);

        // the call is back, the record is handed to the producer, and nobody has acknowledged it
        assertThat(acked.toCompletableFuture()).isNotDone();
        assertThat(channel.held).hasSize(1);
        Message<? extends String> sent = channel.held.get(0);
        assertThat(Event.parse(sent.getPayload())).isEqualTo(e);
        assertThat(sent.getMetadata(OutgoingKafkaRecordMetadata.class)).hasValueSatisfying(m -> assertThat(m.getKey())
                .as("keyed by team, so one team's events stay in order").isEqualTo("quiet"));

        // a second event of the same turn does not wait for the first one either
        assertThat(publisher.publish(event("quiet", 8)).toCompletableFuture()).isNotDone();
        assertThat(channel.held).hasSize(2);

        sent.ack().toCompletableFuture().join();
        assertThat(acked.toCompletableFuture()).isCompletedWithValue(true);
    }

    @Test
    void aNackIsReportedAsFalseAndNeverReachesTheCaller() {
        SilentChannel channel = new SilentChannel();
        CompletionStage<Boolean> acked = new EventPublisher(channel).publish(event("down", 3));

        channel.held.get(0).nack(new IllegalStateException("broker unreachable")).toCompletableFuture().join();

        assertThat(acked.toCompletableFuture()).isCompletedWithValue(false);
    }

    @Test
    void aChannelThatRefusesTheSendDoesNotThrowIntoTheLoop() {
        SilentChannel channel = new SilentChannel();
        channel.refuse = new IllegalStateException("SRMSG00034: Insufficient downstream requests to emit item");

        CompletionStage<Boolean> acked = new EventPublisher(channel).publish(event("full", 9));

        assertThat(acked.toCompletableFuture()).isCompletedWithValue(false);
        assertThat(channel.held).isEmpty();
    }

    @Test
    void theSilentChannelReallyHoldsTheAck() {
        // guards the two tests above: a channel that acknowledged on send would make "not done" impossible to see
        SilentChannel channel = new SilentChannel();
        CompletableFuture<Void> seen = new CompletableFuture<>();
        channel.send(Message.of("x").withAck(() -> {
            seen.complete(null);
            return CompletableFuture.completedFuture(null);
        }));
        assertThat(seen).isNotDone();
        channel.held.get(0).ack();
        assertThat(seen).isDone();
    }
}

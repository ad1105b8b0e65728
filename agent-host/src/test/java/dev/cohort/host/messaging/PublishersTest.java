package dev.cohort.host.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.Topics;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/**
 * Routing and outcomes of {@link AgentMessagePublisher} and {@link KafkaEventSink} over a channel that holds each
 * message until the test acknowledges or refuses it (what the broker does later). The Kafka side is covered end to end
 * by tool-runner-service's background-job tests.
 */
class PublishersTest {

    /** An outgoing channel that keeps messages; {@code refuse} makes send itself fail (buffer full, channel down). */
    static final class HeldChannel implements Emitter<String> {
        final List<Message<? extends String>> held = new ArrayList<>();
        RuntimeException refuse;

        @Override
        public CompletionStage<Void> send(String payload) {
            throw new UnsupportedOperationException("the publishers send messages with metadata");
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

        OutgoingKafkaRecordMetadata<?> meta(int i) {
            return held.get(i).getMetadata(OutgoingKafkaRecordMetadata.class).orElseThrow();
        }
    }

    private static AgentMessage message(String from, String to, String content) {
        return AgentMessage.of("red", from, to, MessageType.MESSAGE, content, null);
    }

    @Test
    void aMessageToTheLeadGoesToTheLeadInboxKeyedByTeamAndToATeammateKeyedByTeamAndName() {
        HeldChannel channel = new HeldChannel();
        AgentMessagePublisher publisher = new AgentMessagePublisher(channel);

        publisher.send(message("alice", "lead", "done"));
        publisher.send(message("lead", "alice", "next"));

        assertThat(channel.meta(0).getTopic()).isEqualTo(Topics.LEAD_INBOX);
        assertThat(channel.meta(0).getKey()).isEqualTo("red");
        assertThat(channel.meta(1).getTopic()).isEqualTo(Topics.TEAMMATE_INBOX);
        assertThat(channel.meta(1).getKey()).isEqualTo("red/alice");
        assertThat(AgentMessage.parse(channel.held.get(1).getPayload()).content()).isEqualTo("next");
    }

    @Test
    void theSendCompletesOnTheBrokerAckAndFailsOnItsRefusal() {
        HeldChannel channel = new HeldChannel();
        AgentMessagePublisher publisher = new AgentMessagePublisher(channel);
        CompletableFuture<Void> first = publisher.send(message("alice", "lead", "one")).toCompletableFuture();
        CompletableFuture<Void> second = publisher.send(message("alice", "lead", "two")).toCompletableFuture();
        assertThat(first).isNotDone();

        channel.held.get(0).ack();
        IllegalStateException down = new IllegalStateException("broker unreachable");
        channel.held.get(1).nack(down);

        assertThat(first).isCompleted();
        assertThat(second).isCompletedExceptionally();
        assertThat(second.exceptionNow()).isSameAs(down);

        channel.refuse = new IllegalStateException("buffer full");
        assertThat(publisher.send(message("alice", "lead", "three")).toCompletableFuture())
                .as("a refused send is a failed stage, not an exception in the caller").isCompletedExceptionally();
    }

    @Test
    void anEventIsSentUnsequencedKeyedByTeamAndALostOneNeverReachesTheCaller() {
        HeldChannel channel = new HeldChannel();
        KafkaEventSink sink = new KafkaEventSink(channel);
        Event e = Event.of("red", "alice", EventType.TURN_STARTED, null);

        sink.emit(e);
        assertThat(channel.meta(0).getKey()).isEqualTo("red");
        assertThat(channel.meta(0).getTopic()).as("the channel's topic, cohort.events").isNull();
        assertThat(Event.parse(channel.held.get(0).getPayload())).isEqualTo(e);
        assertThat(Event.parse(channel.held.get(0).getPayload()).seq()).isZero();
        channel.held.get(0).nack(new IllegalStateException("broker unreachable")).toCompletableFuture().join();

        channel.refuse = new IllegalStateException("buffer full");
        sink.emit(e); // logged, not thrown
        assertThat(channel.held).hasSize(1);
    }
}

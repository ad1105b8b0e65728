package dev.cohort.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.Topics;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

/**
 * Routing and outcomes of {@link AgentMessagePublisher} and {@link KafkaEventSink} over a sender that holds each
 * record until the test acknowledges or refuses it (what the broker does later). The Kafka side is covered end to end
 * by tool-runner-service's background-job tests and the teammate scenarios.
 */
class PublishersTest {

    /** A record handed to the sender, with the stage the broker would complete. */
    record Held(String topic, String key, String value, Headers headers, CompletableFuture<Void> ack) {
    }

    /** A sender that keeps records; {@code refuse} makes the hand-off itself fail (buffer full, producer closed). */
    static final class HeldSender implements RecordSender {
        final List<Held> held = new ArrayList<>();
        RuntimeException refuse;

        @Override
        public CompletableFuture<Void> send(String topic, String key, String value, Headers headers) {
            if (refuse != null) {
                return CompletableFuture.failedFuture(refuse);
            }
            Held h = new Held(topic, key, value, headers, new CompletableFuture<>());
            held.add(h);
            return h.ack();
        }
    }

    private static AgentMessage message(String from, String to, String content) {
        return AgentMessage.of("red", from, to, MessageType.MESSAGE, content, null);
    }

    @Test
    void aMessageToTheLeadGoesToTheLeadInboxKeyedByTeamAndToATeammateKeyedByTeamAndName() {
        HeldSender sender = new HeldSender();
        AgentMessagePublisher publisher = new AgentMessagePublisher(sender);

        publisher.send(message("alice", "lead", "done"));
        publisher.send(message("lead", "alice", "next"));

        assertThat(sender.held.get(0).topic()).isEqualTo(Topics.LEAD_INBOX);
        assertThat(sender.held.get(0).key()).isEqualTo("red");
        assertThat(sender.held.get(1).topic()).isEqualTo(Topics.TEAMMATE_INBOX);
        assertThat(sender.held.get(1).key()).isEqualTo("red/alice");
        assertThat(AgentMessage.parse(sender.held.get(1).value()).content()).isEqualTo("next");
    }

    @Test
    void theSendCompletesOnTheBrokerAckAndFailsOnItsRefusal() {
        HeldSender sender = new HeldSender();
        AgentMessagePublisher publisher = new AgentMessagePublisher(sender);
        CompletableFuture<Void> first = publisher.send(message("alice", "lead", "one")).toCompletableFuture();
        CompletableFuture<Void> second = publisher.send(message("alice", "lead", "two")).toCompletableFuture();
        assertThat(first).isNotDone();

        sender.held.get(0).ack().complete(null);
        IllegalStateException down = new IllegalStateException("broker unreachable");
        sender.held.get(1).ack().completeExceptionally(down);

        assertThat(first).isCompleted();
        assertThat(second).isCompletedExceptionally();
        assertThat(second.exceptionNow()).isSameAs(down);

        sender.refuse = new IllegalStateException("buffer full");
        assertThat(publisher.send(message("alice", "lead", "three")).toCompletableFuture())
                .as("a refused send is a failed stage, not an exception in the caller").isCompletedExceptionally();
    }

    @Test
    void anEventIsSentUnsequencedKeyedByTeamAndALostOneNeverReachesTheCaller() {
        HeldSender sender = new HeldSender();
        KafkaEventSink sink = new KafkaEventSink(sender);
        Event e = Event.of("red", "alice", EventType.TURN_STARTED, null);

        sink.emit(e);
        assertThat(sender.held.get(0).key()).isEqualTo("red");
        assertThat(sender.held.get(0).topic()).isEqualTo(Topics.EVENTS);
        assertThat(sender.held.get(0).headers()).as("no seq header: the lead sequences it").isNull();
        assertThat(Event.parse(sender.held.get(0).value())).isEqualTo(e);
        assertThat(Event.parse(sender.held.get(0).value()).seq()).isZero();
        sender.held.get(0).ack().completeExceptionally(new IllegalStateException("broker unreachable")); // logged

        sender.refuse = new IllegalStateException("buffer full");
        sink.emit(e); // logged, not thrown
        assertThat(sender.held).hasSize(1);

        RecordSender throwing = (topic, key, value, headers) -> {
            throw new IllegalStateException("producer closed");
        };
        new KafkaEventSink(throwing).emit(e); // a sender that throws instead of failing the stage: logged too
    }
}

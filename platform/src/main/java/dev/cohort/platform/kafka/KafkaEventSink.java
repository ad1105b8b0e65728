package dev.cohort.platform.kafka;

import dev.cohort.core.engine.EventSink;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.Topics;
import io.quarkus.logging.Log;
import java.util.Objects;

/**
 * Fire-and-forget events on {@code cohort.events}, keyed by team, for services that do not own the event log (tool
 * runner, teammates): events are sent as they are, normally with {@code seq = 0}; the lead's {@code EventSequencer}
 * consumes them, gives them the team's next seq and stores them. {@link #emit} never blocks on the broker and never
 * throws: events are for observers, so a lost one is logged (team, event type, id), never fatal.
 *
 * <p>Not a bean by itself: the service produces it over its {@link RecordSender} ({@link KafkaRecordSender}; agent-host
 * README, "Messaging").
 */
public class KafkaEventSink implements EventSink {

    private final RecordSender sender;

    public KafkaEventSink(RecordSender sender) {
        this.sender = Objects.requireNonNull(sender, "sender");
    }

    @Override
    public void emit(Event e) {
        try {
            sender.send(Topics.EVENTS, e.team(), Json.write(e), null).whenComplete((v, t) -> {
                if (t != null) {
                    lost(e, t);
                }
            });
        } catch (RuntimeException ex) {
            lost(e, ex);
        }
    }

    private static void lost(Event e, Throwable why) {
        Log.warnf("team=%s event=%s id=%s not published: %s", e.team(), e.type() == null ? null : e.type().wire(), e.id(),
                why.toString());
    }
}

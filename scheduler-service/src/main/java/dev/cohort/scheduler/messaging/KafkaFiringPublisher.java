package dev.cohort.scheduler.messaging;

import dev.cohort.core.protocol.Topics;
import dev.cohort.scheduler.service.Firing;
import dev.cohort.scheduler.service.FiringPublisher;
import io.quarkus.logging.Log;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Sends firings to Kafka: the wake-up record first, and only once it is acknowledged the {@code cron_fired} event, so
 * the event never announces a prompt that was not delivered. Producers use {@code acks=all} and idempotence.
 */
@ApplicationScoped
public class KafkaFiringPublisher implements FiringPublisher {

    @Inject
    @Channel("cron-prompts")
    MutinyEmitter<String> prompts;

    @Inject
    @Channel("cron-teammate-inbox")
    MutinyEmitter<String> teammateInbox;

    @Inject
    @Channel("cron-events")
    MutinyEmitter<String> events;

    @Override
    public CompletionStage<Void> publish(Firing firing) {
        FiringRecords.Out wake = FiringRecords.wakeUp(firing);
        MutinyEmitter<String> emitter = Topics.PROMPTS.equals(wake.topic()) ? prompts : teammateInbox;
        return send(emitter, wake)
                .chain(() -> send(events, FiringRecords.event(firing))
                        .onFailure().recoverWithItem(e -> {
                            Log.warnf("cron_fired event not published team=%s job=%s: %s", firing.job().team(),
                                    firing.job().id(), e.toString());
                            return null;
                        }))
                .subscribeAsCompletionStage();
    }

    private static Uni<Void> send(MutinyEmitter<String> emitter, FiringRecords.Out out) {
        return emitter.sendMessage(Message.of(out.value())
                .addMetadata(OutgoingKafkaRecordMetadata.<String>builder().withKey(out.key()).build()));
    }
}

package dev.cohort.platform.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.header.Headers;

/**
 * Hands one record to Kafka. The returned stage completes when the broker acknowledged the record and fails with the
 * producer's or the broker's error otherwise; {@code send} itself never throws (a refusal at hand-off is a failed
 * stage). Stages may complete on the producer's network thread: dependent work must be short and must not block.
 */
@FunctionalInterface
public interface RecordSender {

    /**
     * @param headers the record's headers, or {@code null} for none
     */
    CompletableFuture<Void> send(String topic, String key, String value, Headers headers);
}

package dev.cohort.platform.tracing;

import dev.cohort.core.trace.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * W3C trace context in Kafka record headers ({@code traceparent}, {@code tracestate}), written and read by Cohort
 * itself rather than by SmallRye's channel tracing (off in every service): a producer span {@code publish <topic>}
 * under the current context whose context goes into the record's headers, and a consumer span
 * {@code process <topic>} whose parent is the context the record carries (a new trace when it carries none, e.g. a
 * record from an outside producer without headers). With tracing off both are no-ops and no header is written.
 */
public final class KafkaTracing {

    private static final TextMapSetter<Headers> SETTER = (h, k, v) -> {
        h.remove(k);
        h.add(k, v.getBytes(StandardCharsets.UTF_8));
    };

    private static final TextMapGetter<Headers> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers h) {
            List<String> keys = new ArrayList<>();
            for (Header x : h) {
                keys.add(x.key());
            }
            return keys;
        }

        @Override
        public String get(Headers h, String key) {
            if (h == null) {
                return null;
            }
            Header x = h.lastHeader(key);
            return x == null || x.value() == null ? null : new String(x.value(), StandardCharsets.UTF_8);
        }
    };

    private KafkaTracing() {
    }

    /** A started producer span for a record to {@code topic}, and the headers carrying its context (maybe empty). */
    public record Publish(Span span, Headers headers) {
        /** The broker answered: ends the span, marked failed when {@code error} is not null. */
        public void done(Throwable error) {
            if (error != null) {
                span.setStatus(StatusCode.ERROR, error.getClass().getSimpleName());
            }
            span.end();
        }
    }

    public static Publish publish(Tracing tracing, String topic) {
        Span span = tracing.start("publish " + topic, SpanKind.PRODUCER)
                .setAttribute("messaging.system", "kafka").setAttribute("messaging.destination.name", topic)
                .setAttribute("messaging.operation.type", "send");
        RecordHeaders headers = new RecordHeaders();
        tracing.inject(Context.current().with(span), headers, SETTER);
        return new Publish(span, headers);
    }

    /** Writes the current context into {@code headers} (a raw producer's record), without a span of its own. */
    public static void inject(Tracing tracing, Headers headers) {
        tracing.inject(headers, SETTER);
    }

    /**
     * A started consumer span for {@code record}, child of the context in its headers; the caller makes it current
     * while it handles the record and ends it.
     */
    public static Span process(Tracing tracing, ConsumerRecord<?, ?> record) {
        Context parent = tracing.extract(record.headers(), GETTER);
        return tracing.start("process " + record.topic(), SpanKind.CONSUMER, parent)
                .setAttribute("messaging.system", "kafka").setAttribute("messaging.destination.name", record.topic())
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.partition.id", String.valueOf(record.partition()))
                .setAttribute("messaging.kafka.offset", record.offset());
    }

    /**
     * Handles {@code record} inside its {@link #process} span: current while {@code handler} runs, marked failed when
     * it throws (the exception goes on to the caller's retry or dead-letter handling), always ended.
     */
    public static <R extends ConsumerRecord<?, ?>> void handle(Tracing tracing, R record, Consumer<R> handler) {
        Span span = process(tracing, record);
        try (Scope ignored = span.makeCurrent()) {
            handler.accept(record);
        } catch (RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            throw e;
        } finally {
            span.end();
        }
    }
}

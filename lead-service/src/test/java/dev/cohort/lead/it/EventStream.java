package dev.cohort.lead.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One SSE connection to {@code /events}, read on a virtual thread: every event's JSON with the {@link System#nanoTime()}
 * of its arrival, and per prompt id a future completed by the first event that carries it (for latency).
 */
final class EventStream implements AutoCloseable {

    /** One event as received. */
    record Received(long arrivedNanos, String sseId, JsonNode event) {
        String type() {
            return event.path("type").asText();
        }

        String promptId() {
            return event.path("promptId").asText(null);
        }
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<String, CompletableFuture<Received>> firstOfPrompt = new ConcurrentHashMap<>();
    private final CompletableFuture<Integer> status = new CompletableFuture<>();
    private final Thread reader;
    private volatile InputStream body;

    private EventStream(String url, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").GET();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpRequest request = b.build();
        reader = Thread.ofVirtual().name("it-sse").start(() -> {
            try {
                HttpResponse<InputStream> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                        .send(request, HttpResponse.BodyHandlers.ofInputStream());
                body = r.body();
                status.complete(r.statusCode());
                BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
                String id = null;
                StringBuilder data = new StringBuilder();
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (!data.isEmpty()) {
                            accept(new Received(System.nanoTime(), id, LeadStack.json(data.toString())));
                        }
                        id = null;
                        data.setLength(0);
                    } else if (line.startsWith("id:")) {
                        id = line.substring(3).strip();
                    } else if (line.startsWith("data:")) {
                        if (!data.isEmpty()) {
                            data.append('\n');
                        }
                        data.append(line.substring(5).stripLeading());
                    }
                }
            } catch (Exception e) {
                status.completeExceptionally(e);
                // closed by the test
            }
        });
    }

    static EventStream open(String url, String token) {
        return new EventStream(url, token);
    }

    private void accept(Received r) {
        received.add(r);
        String p = r.promptId();
        if (p != null) {
            firstOfPrompt.computeIfAbsent(p, k -> new CompletableFuture<>()).complete(r);
        }
    }

    /** The HTTP status of the stream (waits for the response headers). */
    int status(Duration timeout) throws Exception {
        return status.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The first event of a prompt, waiting for it. */
    Received firstOf(String promptId, Duration timeout) throws Exception {
        return firstOfPrompt.computeIfAbsent(promptId, k -> new CompletableFuture<>()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    List<Received> ofPrompt(String promptId) {
        return received.stream().filter(r -> promptId.equals(r.promptId())).toList();
    }

    boolean any(Predicate<Received> p) {
        return received.stream().anyMatch(p);
    }

    @Override
    public void close() {
        try {
            if (body != null) {
                body.close();
            }
        } catch (Exception ignored) {
            // closing
        }
        reader.interrupt();
    }
}

package dev.cohort.lead;

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
import java.util.concurrent.CopyOnWriteArrayList;

/** A minimal Server-Sent Events client for tests: collects (id, event, data) in arrival order. */
public final class SseClient implements AutoCloseable {

    /** One received event. */
    public record Received(String id, String event, String data) {
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private volatile InputStream body;
    private volatile int status;

    private SseClient(String url, String lastEventId, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").GET();
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpRequest request = b.build();
        reader = Thread.ofVirtual().start(() -> {
            try {
                HttpResponse<InputStream> r = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
                status = r.statusCode();
                body = r.body();
                BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
                String id = null;
                String event = null;
                StringBuilder data = new StringBuilder();
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (!data.isEmpty() || event != null) {
                            received.add(new Received(id, event, data.toString()));
                        }
                        id = null;
                        event = null;
                        data.setLength(0);
                    } else if (line.startsWith("id:")) {
                        id = line.substring(3).strip();
                    } else if (line.startsWith("event:")) {
                        event = line.substring(6).strip();
                    } else if (line.startsWith("data:")) {
                        if (!data.isEmpty()) {
                            data.append('\n');
                        }
                        data.append(line.substring(5).stripLeading());
                    }
                }
            } catch (Exception e) {
                // closed by the test
            }
        });
    }

    public static SseClient open(String url, String lastEventId) {
        return new SseClient(url, lastEventId, null);
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    public int status() {
        return status;
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

    static Duration timeout() {
        return Duration.ofSeconds(30);
    }
}

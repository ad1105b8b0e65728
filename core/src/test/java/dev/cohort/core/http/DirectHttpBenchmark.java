package dev.cohort.core.http;

import com.sun.net.httpserver.HttpServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.List;

/**
 * One small JSON {@code POST} answered by a local server (the shape of a tool-runner call), made from a virtual thread
 * as an agent makes it: {@code java.net.http.HttpClient} against {@link DirectHttp}, alternating in rounds so a change
 * of load hits both. Prints p50/p90/p99 per round; run it alone and again beside a load (e.g. {@code stress-ng --cpu
 * 2}) to see the hand-offs' cost when the cores are busy. A main class, not run by {@code verify}:
 *
 * <pre>
 * java -cp "$(cat core/target/cp.txt):core/target/classes:core/target/test-classes" dev.cohort.core.http.DirectHttpBenchmark [calls=20000] [rounds=3]
 * </pre>
 */
public final class DirectHttpBenchmark {

    private DirectHttpBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        server.setExecutor(pool);
        byte[] answer = "{\"output\":\"\",\"error\":null,\"exitCode\":0,\"durationMs\":3}".getBytes(StandardCharsets.UTF_8);
        server.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        server.start();
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/internal/v1/tools/bash");
        byte[] body = "{\"team\":\"default\",\"agent\":\"lead\",\"callId\":\"c1\",\"args\":{\"command\":\"true 1\"}}"
                .getBytes(StandardCharsets.UTF_8);
        try (HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                DirectHttp direct = new DirectHttp(Duration.ofSeconds(5))) {
            System.out.printf("%d calls per client per round (the first fifth not counted), load average %s%n", calls,
                    Files.readString(Path.of("/proc/loadavg")).strip());
            for (int round = 1; round <= rounds; round++) {
                for (String client : List.of("java.net.http", "DirectHttp")) {
                    long[] ns = new long[calls];
                    Thread t = Thread.ofVirtual().start(() -> {
                        try {
                            for (int i = 0; i < calls; i++) {
                                long t0 = System.nanoTime();
                                int status;
                                if (client.equals("DirectHttp")) {
                                    status = direct.send("POST", uri, List.of("Content-Type", "application/json"), body,
                                            Duration.ofSeconds(10)).status();
                                } else {
                                    status = jdk.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                                            .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                            .build(), HttpResponse.BodyHandlers.ofByteArray()).statusCode();
                                }
                                if (status != 200) {
                                    throw new IllegalStateException("status " + status);
                                }
                                ns[i] = System.nanoTime() - t0;
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    t.join();
                    long[] w = Arrays.copyOfRange(ns, calls / 5, calls);
                    Arrays.sort(w);
                    System.out.printf("round %d %-14s p50 %.3f  p90 %.3f  p99 %.3f ms%n", round, client,
                            w[w.length / 2] / 1e6, w[w.length * 9 / 10] / 1e6, w[w.length * 99 / 100] / 1e6);
                }
            }
        } finally {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}

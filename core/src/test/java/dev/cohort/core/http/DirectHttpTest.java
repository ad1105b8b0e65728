package dev.cohort.core.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link DirectHttp} against a scripted HTTP/1.1 server on a real socket: framing, keep-alive, stale connections, failures. */
class DirectHttpTest {

    /** What the server got: one request's head (lower-cased header names) and body. */
    record Got(String head, String body, int connection) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int c = line.indexOf(':');
                if (c > 0 && line.substring(0, c).trim().equalsIgnoreCase(name)) {
                    return line.substring(c + 1).trim();
                }
            }
            return null;
        }
    }

    /**
     * A server whose answer to the n-th request of a connection is {@code answer(got, n)}: raw bytes written as they
     * are; {@code null} closes the connection without answering.
     */
    static final class Server implements AutoCloseable {
        final ServerSocket socket;
        final AtomicInteger accepted = new AtomicInteger();
        final BlockingQueue<Got> got = new LinkedBlockingQueue<>();
        /** The client's port of each connection, by connection number. */
        final Map<Integer, Integer> clientPorts = new ConcurrentHashMap<>();
        volatile BiFunction<Got, Integer, String> answer;

        Server(BiFunction<Got, Integer, String> answer) throws IOException {
            this.answer = answer;
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread.ofPlatform().daemon().name("scripted-http").start(this::acceptLoop);
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
        }

        private void acceptLoop() {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    int n = accepted.incrementAndGet();
                    clientPorts.put(n, s.getPort());
                    Thread.ofPlatform().daemon().start(() -> serve(s, n));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket s, int connection) {
            try (s) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                for (int i = 1; ; i++) {
                    String head = readHead(in);
                    if (head == null) {
                        return;
                    }
                    String len = new Got(head, "", connection).header("content-length");
                    byte[] body = in.readNBytes(len == null ? 0 : Integer.parseInt(len));
                    Got g = new Got(head, new String(body, StandardCharsets.UTF_8), connection);
                    got.add(g);
                    String a = answer.apply(g, i);
                    if (a == null) {
                        return;
                    }
                    boolean silentClose = a.endsWith(CLOSE);
                    out.write(a.replace(CLOSE, "").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    if (silentClose) {
                        // the server's end is closed (the client reads its end of stream), but what the client still
                        // sends on it arrives and is recorded: a request sent on the closed connection is visible
                        s.shutdownOutput();
                        while ((head = readHead(in)) != null) {
                            got.add(new Got(head, "", connection));
                        }
                        return;
                    }
                    if (a.toLowerCase(Locale.ROOT).contains("connection: close")) {
                        return;
                    }
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0) {
                b.write(c);
                byte[] a = b.toByteArray();
                int n = a.length;
                if (n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') {
                    return b.toString(StandardCharsets.ISO_8859_1);
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * Appended to an answer: the server closes the connection after it without saying so (an idle timeout), yet still
     * records a request sent on it.
     */
    static final String CLOSE = "\u0000close";

    static String ok(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private final DirectHttp http = new DirectHttp(Duration.ofSeconds(5));

    @AfterEach
    void close() {
        http.close();
    }

    private DirectHttp.Response post(Server s, String body) throws Exception {
        return http.send("POST", s.uri("/internal/v1/tools/bash?x=1"), List.of("Content-Type", "application/json",
                "Authorization", "Bearer t"), body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10));
    }

    @Test
    void aRequestArrivesWhole_andItsAnswerIsRead() throws Exception {
        try (Server s = new Server((g, i) -> "HTTP/1.1 201 Created\r\nX-Thing: a\r\nx-thing: b\r\nContent-Length: 8\r\n\r\n{\"é\":1}")) {
            DirectHttp.Response r = post(s, "{\"callId\":\"é\"}");
            assertEquals(201, r.status());
            assertEquals("{\"é\":1}", r.text());
            assertEquals(List.of("a", "b"), r.headers().get("X-THING"), "names case-insensitive, values in order");
            Got g = s.got.take();
            assertTrue(g.head().startsWith("POST /internal/v1/tools/bash?x=1 HTTP/1.1\r\n"), g.head());
            assertEquals("127.0.0.1:" + s.socket.getLocalPort(), g.header("host"));
            assertEquals("Bearer t", g.header("authorization"));
            assertEquals(String.valueOf("{\"callId\":\"é\"}".getBytes(StandardCharsets.UTF_8).length), g.header("content-length"));
            assertEquals("{\"callId\":\"é\"}", g.body());
        }
    }

    @Test
    void aKeptConnectionIsReused() throws Exception {
        try (Server s = new Server((g, i) -> ok("{\"n\":" + i + "}"))) {
            for (int i = 1; i <= 5; i++) {
                assertEquals("{\"n\":" + i + "}", post(s, "{}").text());
            }
            assertEquals(1, s.accepted.get(), "five exchanges over one connection");
            assertEquals(1, http.idleConnections("127.0.0.1:" + s.socket.getLocalPort()));
        }
    }

    @Test
    void concurrentCallersGetConnectionsOfTheirOwn() throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        try (Server s = new Server((g, i) -> {
            both.countDown();
            try {
                both.await(5, TimeUnit.SECONDS); // answered only once both requests are in: two connections
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ok("\"" + g.body() + "\"");
        })) {
            CompletableFuture<String> a = new CompletableFuture<>();
            CompletableFuture<String> b = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> a.complete(call(s, "a")));
            Thread.ofVirtual().start(() -> b.complete(call(s, "b")));
            assertEquals("\"a\"", a.get(10, TimeUnit.SECONDS));
            assertEquals("\"b\"", b.get(10, TimeUnit.SECONDS));
            assertEquals(2, s.accepted.get());
        }
    }

    private String call(Server s, String body) {
        try {
            return post(s, body).text();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aChunkedAnswerIsJoined_andTheConnectionKept() throws Exception {
        try (Server s = new Server((g, i) -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n")) {
            assertEquals("hello, world", post(s, "{}").text());
            assertEquals("hello, world", post(s, "{}").text());
            assertEquals(1, s.accepted.get());
        }
    }

    @Test
    void anAnswerEndedByTheConnectionsCloseIsReadToTheEnd_andNotKept() throws Exception {
        try (Server s = new Server((g, i) -> "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it")) {
            assertEquals("all of it", post(s, "{}").text());
            assertEquals("all of it", post(s, "{}").text());
            assertEquals(2, s.accepted.get(), "a closed connection is not reused");
        }
    }

    @Test
    void anHttp10AnswerWithoutKeepAliveIsNotKept() throws Exception {
        try (Server s = new Server((g, i) -> "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")) {
            assertEquals("ok", post(s, "{}").text());
            assertEquals(0, http.idleConnections("127.0.0.1:" + s.socket.getLocalPort()));
        }
    }

    @Test
    void interimAnswersAreSkipped_andAnswersWithoutABodyHaveNone() throws Exception {
        try (Server s = new Server((g, i) -> i == 1
                ? "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                : "HTTP/1.1 204 No Content\r\n\r\n")) {
            assertEquals("ok", post(s, "{}").text());
            DirectHttp.Response r = post(s, "{}");
            assertEquals(204, r.status());
            assertEquals(0, r.body().length);
            assertEquals(1, s.accepted.get());
        }
    }

    @Test
    void aConnectionThePeerClosedWhileIdleIsNotUsed() throws Exception {
        // the server closes every connection after its first answer, without saying so (as an idle timeout does)
        try (Server s = new Server((g, i) -> ok("\"" + g.connection() + "\"") + CLOSE)) {
            assertEquals("\"1\"", post(s, "{}").text());
            awaitClientEndClosedByPeer(s, 1);
            assertEquals("\"2\"", post(s, "{}").text());
            assertEquals(2, s.accepted.get());
            // a client that did not notice the close would send the second request on connection 1 first (and, its
            // answer never coming, again on a new one): the server records it there
            assertEquals(List.of(1, 2), s.got.stream().map(Got::connection).toList(),
                    "the second request went out on a new connection only");
        }
    }

    /**
     * Waits until the kernel has the client's end of connection {@code n} in {@code CLOSE_WAIT}: the server's close
     * has arrived there, so whatever the client does next, it can know. Read from {@code /proc/net/tcp} and
     * {@code tcp6} (Java sockets are IPv6 sockets mapping IPv4 addresses).
     */
    private static void awaitClientEndClosedByPeer(Server s, int n) {
        int clientPort = s.clientPorts.get(n);
        int serverPort = s.socket.getLocalPort();
        await("the server's close of connection " + n + " arrived at the client").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5)).until(() -> tcpState(clientPort, serverPort), "08"::equals);
    }

    /** The hexadecimal TCP state of the socket from {@code localPort} to {@code remotePort}, or null. */
    private static String tcpState(int localPort, int remotePort) throws IOException {
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (port(f[1]) == localPort && port(f[2]) == remotePort) {
                    return f[3];
                }
            }
        }
        return null;
    }

    /** The port of an {@code address:port} column of {@code /proc/net/tcp}, hexadecimal. */
    private static int port(String addressAndPort) {
        return Integer.parseInt(addressAndPort.substring(addressAndPort.indexOf(':') + 1), 16);
    }

    @Test
    void aRequestOnAReusedConnectionClosedWithoutAnAnswerIsSentOnceMoreOnANewOne() throws Exception {
        // the server reads the second request of a connection and closes it unanswered: the race of an idle timeout
        try (Server s = new Server((g, i) -> i == 1 ? ok("\"" + g.connection() + "\"") : null)) {
            assertEquals("\"1\"", post(s, "first").text());
            DirectHttp.Response r = post(s, "second");
            assertEquals("\"2\"", r.text(), "answered on a new connection");
            assertEquals(List.of("first", "second", "second"), s.got.stream().map(Got::body).toList());
        }
    }

    @Test
    void aNewConnectionClosedWithoutAnAnswerIsTheCallersFailure() throws Exception {
        try (Server s = new Server((g, i) -> null)) {
            IOException e = assertThrows(IOException.class, () -> post(s, "{}"));
            assertTrue(e.getMessage().contains("closed before an answer"), e.getMessage());
            assertEquals(1, s.got.size(), "sent once");
        }
    }

    @Test
    void anAnswerThatBreaksOffIsAFailure_andTheConnectionIsDropped() throws Exception {
        try (Server s = new Server((g, i) -> "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\nshort")) {
            IOException e = assertThrows(IOException.class, () -> post(s, "{}"));
            assertTrue(e.getMessage().contains("broke off"), e.getMessage());
            assertEquals(0, http.idleConnections("127.0.0.1:" + s.socket.getLocalPort()));
        }
    }

    @Test
    void aMalformedAnswerIsAProtocolFailure() throws Exception {
        try (Server s = new Server((g, i) -> "SMTP ready\r\n\r\n")) {
            ProtocolException e = assertThrows(ProtocolException.class, () -> post(s, "{}"));
            assertTrue(e.getMessage().contains("not an HTTP/1.x status line: SMTP ready"), e.getMessage());
        }
        try (Server s = new Server((g, i) -> "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")) {
            assertThrows(ProtocolException.class, () -> post(s, "{}"));
        }
        try (Server s = new Server((g, i) -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")) {
            ProtocolException e = assertThrows(ProtocolException.class, () -> post(s, "{}"));
            assertTrue(e.getMessage().contains("unreadable chunk size"), e.getMessage());
        }
    }

    @Test
    void anExchangeLongerThanItsTimeoutFails_asHttpClientReportsIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Server s = new Server((g, i) -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        })) {
            HttpTimeoutException e = assertThrows(HttpTimeoutException.class, () -> http.send("POST", s.uri("/"), List.of(),
                    new byte[0], Duration.ofMillis(300)));
            assertTrue(e.getMessage().contains("timed out after 300 ms"), e.getMessage());
            release.countDown();
        }
    }

    @Test
    void anInterruptedCallerGetsInterruptedException_withItsFlagSet() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Server s = new Server((g, i) -> {
            arrived.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        })) {
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    outcome.complete(http.send("POST", s.uri("/"), List.of(), new byte[0], null));
                } catch (InterruptedException e) {
                    outcome.complete(Thread.currentThread().isInterrupted() ? "interrupted, flag set" : "flag lost");
                } catch (Exception e) {
                    outcome.complete(e);
                }
            });
            assertTrue(arrived.await(10, TimeUnit.SECONDS));
            t.interrupt();
            assertEquals("interrupted, flag set", outcome.get(10, TimeUnit.SECONDS));
            release.countDown();
        }
    }

    @Test
    void aRefusedConnectionIsAnIoFailure() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        assertThrows(ConnectException.class, () -> http.send("GET", URI.create("http://127.0.0.1:" + port + "/"), List.of(),
                null, Duration.ofSeconds(5)));
    }

    @Test
    void headersThatWouldSplitTheRequestAreRefused() throws Exception {
        try (Server s = new Server((g, i) -> ok("{}"))) {
            assertThrows(IllegalArgumentException.class, () -> http.send("POST", s.uri("/"),
                    List.of("X-Evil", "a\r\nX-Injected: b"), new byte[0], null));
            assertThrows(IllegalArgumentException.class, () -> http.send("POST", s.uri("/"), List.of("Bad Name", "v"),
                    new byte[0], null));
            assertThrows(IllegalArgumentException.class, () -> http.send("GET", URI.create("ftp://h/x"), List.of(), null,
                    null));
            assertEquals(0, s.got.size());
        }
    }

    @Test
    void aGetWithoutABodySendsNoContentLength() throws Exception {
        try (Server s = new Server((g, i) -> ok("{}"))) {
            assertEquals(200, http.send("GET", s.uri("/q"), List.of("Accept", "application/json"), null, null).status());
            assertEquals(null, s.got.take().header("content-length"));
        }
    }
}

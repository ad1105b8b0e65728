package dev.cohort.core.http;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * HTTP/1.1 request/response exchanges for the services' hot internal calls (a host's model requests and tool-runner
 * calls), made <b>on the calling thread</b>: for a plain {@code http://} origin the request is written and the answer
 * read by the caller itself over a kept-alive connection, with no hand-off. {@code java.net.http.HttpClient} writes and
 * reads on its selector thread and completes on an executor, two hand-offs per exchange that cost little on an idle
 * machine but up to a millisecond or more each at p90 when the cores are busy (the core module's README, "Direct
 * HTTP"). An {@code https://} origin (a public provider, where the network dominates) goes through
 * {@code java.net.http.HttpClient} as before.
 *
 * <p>What the direct path speaks: a request with a fixed-length body (or none); an answer with {@code Content-Length},
 * {@code Transfer-Encoding: chunked} or delimited by the connection's close; {@code 1xx} interim answers skipped;
 * {@code Connection: close} and HTTP/1.0 honoured. No proxy (neither path uses one), no compression asked for.
 *
 * <p>Connections: kept per origin while idle (at most {@link #MAX_IDLE} each, none idle longer than
 * {@link #IDLE_LIMIT}); one a peer closed while idle is noticed before reuse (a non-blocking read sees its end) and
 * dropped. A request sent on a reused connection that fails before the first byte of an answer (the peer closed it as
 * the request went out) is sent once more on a new connection, as browsers and OkHttp do; a failure on a new
 * connection, a timeout, or a failure after an answer began is the caller's.
 *
 * <p>Failures, as {@code HttpClient.send} reports them: {@link HttpConnectTimeoutException} and
 * {@link HttpTimeoutException} for the connect and the whole exchange ({@code timeout}: from the request's first byte
 * to the answer's last), {@link IOException} for a refused, reset or malformed exchange, {@link InterruptedException}
 * when the calling thread is interrupted (the connection is then closed). Thread-safe; share one per service.
 */
public final class DirectHttp implements AutoCloseable {

    /** Idle connections kept per origin; more are closed after their exchange. */
    static final int MAX_IDLE = 16;
    /** A connection idle longer than this is closed rather than reused (servers close theirs after 5 s to minutes). */
    static final Duration IDLE_LIMIT = Duration.ofSeconds(30);
    /** The most an answer's status line and headers may take. */
    static final int MAX_HEAD = 64 * 1024;
    /** The most an answer's body may take (a model's answer, a tool's capped output, are far below it). */
    static final int MAX_BODY = 64 * 1024 * 1024;

    /**
     * An answer.
     *
     * @param status  the status code
     * @param headers its headers, names case-insensitive, each name's values in order
     * @param body    its body, empty when it had none
     */
    public record Response(int status, Map<String, List<String>> headers, byte[] body) {
        /** The first value of header {@code name}, if any. */
        public Optional<String> header(String name) {
            List<String> v = headers.get(name);
            return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v.getFirst());
        }

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Duration connectTimeout;
    private final ConcurrentHashMap<String, ConcurrentLinkedDeque<Conn>> idle = new ConcurrentHashMap<>();
    private volatile HttpClient jdk;
    private volatile boolean closed;

    /** @param connectTimeout the longest a new connection may take (null: 10 s) */
    public DirectHttp(Duration connectTimeout) {
        this.connectTimeout = connectTimeout == null ? Duration.ofSeconds(10) : connectTimeout;
    }

    /**
     * One exchange.
     *
     * @param method  {@code GET}, {@code POST}, {@code PUT}, {@code DELETE}, …
     * @param uri     an absolute {@code http://} or {@code https://} URI
     * @param headers request headers as name, value, name, value, … ({@code Host}, {@code Content-Length} and
     *                {@code Connection} are this class's)
     * @param body    the request body, or null for none
     * @param timeout the longest the exchange may take from its first byte to the answer's last (null: no limit)
     */
    public Response send(String method, URI uri, List<String> headers, byte[] body, Duration timeout)
            throws IOException, InterruptedException {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(uri, "uri");
        if (headers.size() % 2 != 0) {
            throw new IllegalArgumentException("headers come as name, value pairs");
        }
        if (closed) {
            throw new IOException("this HTTP client is closed");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("https")) {
            return viaJdk(method, uri, headers, body, timeout);
        }
        if (!scheme.equals("http") || uri.getHost() == null) {
            throw new IllegalArgumentException("not an absolute http(s) URI: " + uri);
        }
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        byte[] request = request(method, uri, headers, body);
        String origin = uri.getHost().toLowerCase(Locale.ROOT) + ":" + port(uri);
        Conn c = pooled(origin);
        boolean reused = c != null;
        if (c == null) {
            c = open(uri);
        }
        try {
            return exchange(c, origin, method, request, deadline, timeout);
        } catch (StaleConnection e) {
            // the peer closed the kept connection as the request went out: nothing of an answer came, so the request
            // goes once more on a new connection (only a reused one can be stale)
            if (!reused) {
                throw e.failure;
            }
            Conn fresh = open(uri);
            try {
                return exchange(fresh, origin, method, request, deadline, timeout);
            } catch (StaleConnection again) {
                throw again.failure;
            }
        }
    }

    /** Closes the idle connections; later sends fail. */
    @Override
    public void close() {
        closed = true;
        idle.values().forEach(q -> {
            Conn c;
            while ((c = q.poll()) != null) {
                c.close();
            }
        });
        HttpClient j = jdk;
        if (j != null) {
            j.close();
        }
    }

    /** Idle connections kept for {@code host:port} (tests). */
    int idleConnections(String origin) {
        ConcurrentLinkedDeque<Conn> q = idle.get(origin);
        return q == null ? 0 : q.size();
    }

    // ---- the direct path -----------------------------------------------------------------------------------------

    /** A request on a reused connection failed before any byte of its answer. */
    private static final class StaleConnection extends Exception {
        final IOException failure;

        StaleConnection(IOException failure) {
            super(failure.getMessage(), failure, false, false);
            this.failure = failure;
        }
    }

    private static final class Conn {
        final SocketChannel channel;
        final InputStream in;
        final OutputStream out;
        final byte[] buf = new byte[16 * 1024];
        int pos;
        int lim;
        long idleSince;

        Conn(SocketChannel channel) throws IOException {
            this.channel = channel;
            this.in = channel.socket().getInputStream();
            this.out = channel.socket().getOutputStream();
        }

        /** False when the peer closed it (or sent something unasked) while it was idle. */
        boolean usable() {
            if (pos < lim) {
                return false; // bytes beyond the last answer: out of step
            }
            try {
                channel.configureBlocking(false);
                try {
                    return channel.read(ByteBuffer.allocate(1)) == 0;
                } finally {
                    channel.configureBlocking(true);
                }
            } catch (IOException e) {
                return false;
            }
        }

        int read(long deadline) throws IOException {
            if (pos < lim) {
                return buf[pos++] & 0xff;
            }
            fill(deadline);
            return lim < 0 ? -1 : buf[pos++] & 0xff;
        }

        /** Reads more into the empty buffer; {@code lim} is -1 at the end of the stream. */
        void fill(long deadline) throws IOException {
            timeout(deadline);
            int n = in.read(buf, 0, buf.length);
            pos = 0;
            lim = n;
        }

        void timeout(long deadline) throws IOException {
            if (deadline == Long.MAX_VALUE) {
                channel.socket().setSoTimeout(0);
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("timed out");
            }
            channel.socket().setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000)));
        }

        void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing: nothing to do
            }
        }
    }

    private Conn pooled(String origin) {
        ConcurrentLinkedDeque<Conn> q = idle.get(origin);
        if (q == null) {
            return null;
        }
        long now = System.nanoTime();
        Conn c;
        while ((c = q.pollFirst()) != null) {
            if (now - c.idleSince < IDLE_LIMIT.toNanos() && c.usable()) {
                return c;
            }
            c.close();
        }
        return null;
    }

    private void release(String origin, Conn c) {
        ConcurrentLinkedDeque<Conn> q = idle.computeIfAbsent(origin, k -> new ConcurrentLinkedDeque<>());
        if (closed || q.size() >= MAX_IDLE) {
            c.close();
            return;
        }
        c.idleSince = System.nanoTime();
        q.offerFirst(c); // the most recently used first: the fewest connections stay warm
    }

    private Conn open(URI uri) throws IOException, InterruptedException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.socket().setTcpNoDelay(true);
            ch.socket().setKeepAlive(true);
            ch.socket().connect(new InetSocketAddress(uri.getHost(), port(uri)),
                    (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis())));
            return new Conn(ch);
        } catch (SocketTimeoutException e) {
            close(ch);
            HttpConnectTimeoutException t = new HttpConnectTimeoutException("HTTP connect timed out: " + origin(uri));
            t.initCause(e);
            throw t;
        } catch (ClosedByInterruptException e) {
            close(ch);
            Thread.currentThread().interrupt(); // closed by an interrupt: the flag stays set for the caller
            throw interrupted(e);
        } catch (IOException | RuntimeException e) {
            close(ch);
            throw e;
        }
    }

    private static void close(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // already failing
        }
    }

    private Response exchange(Conn c, String origin, String method, byte[] request, long deadline, Duration timeout)
            throws IOException, InterruptedException, StaleConnection {
        boolean answerBegan = false;
        try {
            try {
                c.timeout(deadline);
                c.out.write(request);
                c.out.flush();
                int first = c.read(deadline);
                if (first < 0) {
                    throw new EOFException("the connection was closed before an answer");
                }
                answerBegan = true;
                c.pos--; // the status line starts with it
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                if (!(e instanceof InterruptedIOException) && !(e instanceof ClosedByInterruptException)
                        && !Thread.currentThread().isInterrupted()) {
                    c.close();
                    throw new StaleConnection(e);
                }
                throw e;
            }
            Response r;
            boolean keep;
            while (true) {
                Head head = head(c, deadline);
                if (head.status >= 100 && head.status < 200) {
                    continue; // 100 Continue and other interim answers: the real one follows
                }
                boolean noBody = method.equals("HEAD") || head.status == 204 || head.status == 304;
                boolean chunked = head.has("transfer-encoding", "chunked");
                byte[] body;
                keep = head.keepAlive();
                if (noBody) {
                    body = new byte[0];
                } else if (chunked) {
                    body = chunked(c, deadline);
                } else if (head.first("content-length") != null) {
                    body = fixed(c, contentLength(head.first("content-length")), deadline);
                } else {
                    body = untilClose(c, deadline);
                    keep = false;
                }
                r = new Response(head.status, head.headers, body);
                break;
            }
            if (keep) {
                release(origin, c);
            } else {
                c.close();
            }
            return r;
        } catch (SocketTimeoutException e) {
            c.close();
            HttpTimeoutException t = new HttpTimeoutException("request timed out"
                    + (timeout == null ? "" : " after " + timeout.toMillis() + " ms"));
            t.initCause(e);
            throw t;
        } catch (ClosedByInterruptException e) {
            c.close();
            Thread.currentThread().interrupt(); // closed by an interrupt: the flag stays set for the caller
            throw interrupted(e);
        } catch (IOException | RuntimeException e) {
            c.close();
            if (Thread.currentThread().isInterrupted()) {
                throw interrupted(e);
            }
            if (!answerBegan || e instanceof ProtocolException) {
                throw e;
            }
            throw new IOException("the answer broke off: " + e.getMessage(), e);
        }
    }

    private static InterruptedException interrupted(Exception cause) {
        InterruptedException i = new InterruptedException("interrupted during an HTTP exchange");
        i.initCause(cause);
        return i;
    }

    /** A status line and its headers. */
    private record Head(int status, String version, Map<String, List<String>> headers) {
        String first(String name) {
            List<String> v = headers.get(name);
            return v == null || v.isEmpty() ? null : v.getFirst();
        }

        boolean has(String name, String token) {
            List<String> v = headers.get(name);
            if (v == null) {
                return false;
            }
            for (String s : v) {
                for (String t : s.split(",")) {
                    if (t.trim().equalsIgnoreCase(token)) {
                        return true;
                    }
                }
            }
            return false;
        }

        boolean keepAlive() {
            if (has("connection", "close")) {
                return false;
            }
            return !version.equals("HTTP/1.0") || has("connection", "keep-alive");
        }
    }

    private static Head head(Conn c, long deadline) throws IOException {
        String status = line(c, deadline, new int[] {0});
        int[] used = {status.length()};
        // "HTTP/1.1 200 OK" (the reason may be empty or missing)
        if (!status.startsWith("HTTP/1.") || status.length() < 12 || status.charAt(8) != ' ') {
            throw new ProtocolException("not an HTTP/1.x status line: " + printable(status));
        }
        int code;
        try {
            code = Integer.parseInt(status.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new ProtocolException("not an HTTP/1.x status line: " + printable(status));
        }
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        while (true) {
            String h = line(c, deadline, used);
            if (h.isEmpty()) {
                break;
            }
            int colon = h.indexOf(':');
            if (colon <= 0) {
                throw new ProtocolException("malformed header line: " + printable(h));
            }
            headers.computeIfAbsent(h.substring(0, colon).trim(), k -> new ArrayList<>()).add(h.substring(colon + 1).trim());
        }
        headers.replaceAll((k, v) -> Collections.unmodifiableList(v));
        return new Head(code, status.substring(0, 8), Collections.unmodifiableMap(headers));
    }

    /** A line ending in CRLF (or LF), without it; {@code used[0]} counts the head's bytes against {@link #MAX_HEAD}. */
    private static String line(Conn c, long deadline, int[] used) throws IOException {
        StringBuilder b = new StringBuilder(64);
        while (true) {
            int ch = c.read(deadline);
            if (ch < 0) {
                throw new EOFException("the connection was closed in the middle of an answer's head");
            }
            if (++used[0] > MAX_HEAD) {
                throw new ProtocolException("an answer's head is longer than " + MAX_HEAD + " bytes");
            }
            if (ch == '\n') {
                int n = b.length();
                if (n > 0 && b.charAt(n - 1) == '\r') {
                    b.setLength(n - 1);
                }
                return b.toString();
            }
            b.append((char) ch); // ISO-8859-1, as HTTP/1.1 heads are
        }
    }

    private static long contentLength(String v) throws ProtocolException {
        try {
            long n = Long.parseLong(v.trim());
            if (n < 0) {
                throw new ProtocolException("negative Content-Length: " + v);
            }
            if (n > MAX_BODY) {
                throw new ProtocolException("an answer of " + n + " bytes is larger than " + MAX_BODY);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ProtocolException("unreadable Content-Length: " + printable(v));
        }
    }

    private static byte[] fixed(Conn c, long n, long deadline) throws IOException {
        byte[] out = new byte[(int) n];
        int off = 0;
        while (off < n) {
            if (c.pos >= c.lim) {
                c.fill(deadline);
                if (c.lim < 0) {
                    throw new EOFException("the connection was closed after " + off + " of " + n + " body bytes");
                }
            }
            int k = Math.min(c.lim - c.pos, (int) n - off);
            System.arraycopy(c.buf, c.pos, out, off, k);
            c.pos += k;
            off += k;
        }
        return out;
    }

    private static byte[] chunked(Conn c, long deadline) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int[] used = {0};
        while (true) {
            String size = line(c, deadline, used);
            used[0] = 0;
            int semi = size.indexOf(';');
            long n;
            try {
                n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new ProtocolException("unreadable chunk size: " + printable(size));
            }
            if (n < 0 || out.size() + n > MAX_BODY) {
                throw new ProtocolException("a chunked answer larger than " + MAX_BODY + " bytes");
            }
            if (n == 0) {
                while (!line(c, deadline, used).isEmpty()) {
                    // trailers: not used
                }
                return out.toByteArray();
            }
            out.write(fixed(c, n, deadline));
            if (!line(c, deadline, used).isEmpty()) {
                throw new ProtocolException("a chunk not followed by CRLF");
            }
        }
    }

    private static byte[] untilClose(Conn c, long deadline) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            if (c.pos >= c.lim) {
                c.fill(deadline);
                if (c.lim < 0) {
                    return out.toByteArray();
                }
            }
            out.write(c.buf, c.pos, c.lim - c.pos);
            c.pos = c.lim;
            if (out.size() > MAX_BODY) {
                throw new ProtocolException("an answer larger than " + MAX_BODY + " bytes");
            }
        }
    }

    private static byte[] request(String method, URI uri, List<String> headers, byte[] body) {
        StringBuilder h = new StringBuilder(256);
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        h.append(method).append(' ').append(path);
        if (uri.getRawQuery() != null) {
            h.append('?').append(uri.getRawQuery());
        }
        h.append(" HTTP/1.1\r\nHost: ").append(origin(uri)).append("\r\n");
        for (int i = 0; i < headers.size(); i += 2) {
            String name = headers.get(i);
            String value = headers.get(i + 1);
            if (name.equalsIgnoreCase("host") || name.equalsIgnoreCase("content-length")
                    || name.equalsIgnoreCase("connection") || name.equalsIgnoreCase("transfer-encoding")) {
                continue;
            }
            if (!token(name) || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("an unusable header: " + name);
            }
            h.append(name).append(": ").append(value).append("\r\n");
        }
        if (body != null) {
            h.append("Content-Length: ").append(body.length).append("\r\n");
        }
        h.append("\r\n");
        byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        if (body == null || body.length == 0) {
            return head;
        }
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    private static boolean token(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch <= ' ' || ch >= 127 || ch == ':') {
                return false;
            }
        }
        return true;
    }

    private static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : 80;
    }

    private static String origin(URI uri) {
        String host = uri.getHost();
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return uri.getPort() >= 0 ? host + ":" + uri.getPort() : host;
    }

    private static String printable(String s) {
        String t = s.length() > 200 ? s.substring(0, 200) + "…" : s;
        return t.replaceAll("[^\\x20-\\x7e]", "?");
    }

    // ---- https: java.net.http -------------------------------------------------------------------------------------

    private Response viaJdk(String method, URI uri, List<String> headers, byte[] body, Duration timeout)
            throws IOException, InterruptedException {
        HttpClient j = jdk;
        if (j == null) {
            synchronized (this) {
                j = jdk;
                if (j == null) {
                    j = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
                    jdk = j;
                }
            }
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.size(); i += 2) {
            b.header(headers.get(i), headers.get(i + 1));
        }
        if (timeout != null) {
            b.timeout(timeout);
        }
        HttpResponse<byte[]> r = j.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Response(r.statusCode(), r.headers().map(), r.body());
    }
}

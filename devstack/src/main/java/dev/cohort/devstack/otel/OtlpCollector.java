package dev.cohort.devstack.otel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A small OTLP/HTTP trace collector for tests: services export to {@code POST /v1/traces} with
 * {@code QUARKUS_OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf} and {@code QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT=}
 * {@link #endpoint()}. It decodes the protobuf {@code ExportTraceServiceRequest} by hand (only the fields a test
 * asserts on: the resource's {@code service.name}, each span's ids, parent, name, kind and string/int/bool
 * attributes), so devstack needs no protobuf library. A body it cannot decode is answered 400 and kept in
 * {@link #errors()}.
 */
public final class OtlpCollector implements AutoCloseable {

    /** One received span. {@code parentSpanId} is empty for a root span. */
    public record SpanRecord(String service, String traceId, String spanId, String parentSpanId, String name, int kind,
            Map<String, Object> attributes) {
        public String attr(String key) {
            Object v = attributes.get(key);
            return v == null ? null : String.valueOf(v);
        }
    }

    private final HttpServer server;
    private final List<SpanRecord> spans = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();

    private OtlpCollector(HttpServer server) {
        this.server = server;
    }

    /** Starts on {@code 127.0.0.1:port} (0 = any free port). */
    public static OtlpCollector start(int port) {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            OtlpCollector c = new OtlpCollector(s);
            s.createContext("/v1/traces", c::handle);
            s.start();
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The OTLP endpoint (base URL; the exporter appends {@code /v1/traces}). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<SpanRecord> spans() {
        return List.copyOf(spans);
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
                try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
                    body = in.readAllBytes();
                }
            }
            int status = 200;
            try {
                spans.addAll(decodeRequest(body));
            } catch (RuntimeException e) {
                errors.add(e.toString());
                status = 400;
            }
            ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            ex.sendResponseHeaders(status, -1);
        }
    }

    // ---- protobuf, by hand ------------------------------------------------------------------------------------

    /** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; } */
    static List<SpanRecord> decodeRequest(byte[] b) {
        List<SpanRecord> out = new ArrayList<>();
        for (Field f : fields(b)) {
            if (f.number == 1) {
                resourceSpans(f.bytes, out);
            }
        }
        return out;
    }

    /** ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; } */
    private static void resourceSpans(byte[] b, List<SpanRecord> out) {
        String service = null;
        List<byte[]> scopes = new ArrayList<>();
        for (Field f : fields(b)) {
            if (f.number == 1) {
                Map<String, Object> attrs = new LinkedHashMap<>();
                for (Field r : fields(f.bytes)) {
                    if (r.number == 1) {
                        keyValue(r.bytes, attrs);
                    }
                }
                service = (String) attrs.get("service.name");
            } else if (f.number == 2) {
                scopes.add(f.bytes);
            }
        }
        for (byte[] scope : scopes) {
            for (Field f : fields(scope)) { // ScopeSpans { scope = 1; repeated Span spans = 2; }
                if (f.number == 2) {
                    out.add(span(service, f.bytes));
                }
            }
        }
    }

    /** Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9 } */
    private static SpanRecord span(String service, byte[] b) {
        String trace = "";
        String id = "";
        String parent = "";
        String name = "";
        int kind = 0;
        Map<String, Object> attrs = new LinkedHashMap<>();
        for (Field f : fields(b)) {
            switch (f.number) {
                case 1 -> trace = HexFormat.of().formatHex(f.bytes);
                case 2 -> id = HexFormat.of().formatHex(f.bytes);
                case 4 -> parent = HexFormat.of().formatHex(f.bytes);
                case 5 -> name = new String(f.bytes, StandardCharsets.UTF_8);
                case 6 -> kind = (int) f.varint;
                case 9 -> keyValue(f.bytes, attrs);
                default -> {
                }
            }
        }
        return new SpanRecord(service, trace, id, parent, name, kind, attrs);
    }

    /** KeyValue { string key = 1; AnyValue value = 2; } AnyValue { string 1, bool 2, int 3, double 4, array 5 } */
    private static void keyValue(byte[] b, Map<String, Object> into) {
        String key = null;
        Object value = null;
        for (Field f : fields(b)) {
            if (f.number == 1) {
                key = new String(f.bytes, StandardCharsets.UTF_8);
            } else if (f.number == 2) {
                for (Field v : fields(f.bytes)) {
                    value = switch (v.number) {
                        case 1 -> new String(v.bytes, StandardCharsets.UTF_8);
                        case 2 -> v.varint != 0;
                        case 3 -> v.varint;
                        case 4 -> Double.longBitsToDouble(v.varint);
                        default -> v.bytes == null ? null : "<" + v.bytes.length + " bytes>";
                    };
                }
            }
        }
        if (key != null) {
            into.put(key, value);
        }
    }

    private record Field(int number, long varint, byte[] bytes) {
    }

    private static List<Field> fields(byte[] b) {
        List<Field> out = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            long tag = varint(b, pos);
            int number = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            switch (wire) {
                case 0 -> out.add(new Field(number, varint(b, pos), null));
                case 1 -> {
                    long v = 0;
                    for (int i = 0; i < 8; i++) {
                        v |= (b[pos[0] + i] & 0xffL) << (8 * i);
                    }
                    pos[0] += 8;
                    out.add(new Field(number, v, null));
                }
                case 2 -> {
                    int len = (int) varint(b, pos);
                    if (len < 0 || pos[0] + len > b.length) {
                        throw new IllegalArgumentException("truncated protobuf field " + number);
                    }
                    byte[] v = Arrays.copyOfRange(b, pos[0], pos[0] + len);
                    pos[0] += len;
                    out.add(new Field(number, 0, v));
                }
                case 5 -> {
                    long v = 0;
                    for (int i = 0; i < 4; i++) {
                        v |= (b[pos[0] + i] & 0xffL) << (8 * i);
                    }
                    pos[0] += 4;
                    out.add(new Field(number, v, null));
                }
                default -> throw new IllegalArgumentException("unsupported protobuf wire type " + wire);
            }
        }
        return out;
    }

    private static long varint(byte[] b, int[] pos) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos[0] >= b.length) {
                throw new IllegalArgumentException("truncated varint");
            }
            byte x = b[pos[0]++];
            v |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("varint too long");
    }
}

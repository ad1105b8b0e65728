package dev.cohort.devstack.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Minimal HTTP/1.1 reading and writing: keep-alive, Content-Length or chunked bodies, one write per response. */
final class HttpWire {

    private static final int MAX_LINE = 64 * 1024;
    private static final int MAX_HEADERS = 200;
    private static final int MAX_BODY = 64 * 1024 * 1024;

    private HttpWire() {
    }

    /** A parsed request; header names are lower-cased. */
    record Request(String method, String path, Map<String, String> query, Map<String, String> headers, byte[] body,
            boolean keepAlive) {

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** The request is not valid HTTP: answer 400 and close. */
    static final class BadRequest extends IOException {
        BadRequest(String message) {
            super(message);
        }
    }

    /** Reads one request, or returns null when the peer closed the connection between requests. */
    static Request read(InputStream in, OutputStream out) throws IOException {
        String requestLine = readLine(in);
        while (requestLine != null && requestLine.isEmpty()) {
            requestLine = readLine(in); // RFC 9112 2.2: ignore stray CRLF before a request line
        }
        if (requestLine == null) {
            return null;
        }
        String[] parts = requestLine.split(" ");
        if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
            throw new BadRequest("bad request line: " + requestLine);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 0; ; i++) {
            String line = readLine(in);
            if (line == null) {
                throw new BadRequest("connection closed inside the headers");
            }
            if (line.isEmpty()) {
                break;
            }
            if (i >= MAX_HEADERS) {
                throw new BadRequest("too many headers");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new BadRequest("bad header line: " + line);
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            headers.merge(name, value, (a, b) -> a + ", " + b);
        }
        String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
        boolean keepAlive = parts[2].equals("HTTP/1.1") ? !connection.contains("close") : connection.contains("keep-alive");

        if ("100-continue".equalsIgnoreCase(headers.get("expect"))) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
        byte[] body;
        String transferEncoding = headers.get("transfer-encoding");
        if (transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked")) {
            body = readChunked(in);
        } else if (headers.containsKey("content-length")) {
            int length;
            try {
                length = Integer.parseInt(headers.get("content-length"));
            } catch (NumberFormatException e) {
                throw new BadRequest("bad Content-Length");
            }
            if (length < 0 || length > MAX_BODY) {
                throw new BadRequest("bad Content-Length");
            }
            body = in.readNBytes(length);
            if (body.length != length) {
                throw new BadRequest("connection closed inside the body");
            }
        } else {
            body = new byte[0];
        }

        String target = parts[1];
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        Map<String, String> query = new LinkedHashMap<>();
        if (q >= 0) {
            for (String pair : target.substring(q + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : pair.substring(eq + 1);
                query.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
            }
        }
        return new Request(parts[0], path, query, headers, body, keepAlive);
    }

    private static byte[] readChunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine(in);
            if (sizeLine == null) {
                throw new BadRequest("connection closed inside a chunked body");
            }
            int semicolon = sizeLine.indexOf(';');
            int size;
            try {
                size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new BadRequest("bad chunk size: " + sizeLine);
            }
            if (size < 0 || body.size() + (long) size > MAX_BODY) {
                throw new BadRequest("chunked body too large");
            }
            if (size == 0) {
                String trailer;
                do {
                    trailer = readLine(in);
                } while (trailer != null && !trailer.isEmpty());
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new BadRequest("connection closed inside a chunk");
            }
            body.write(chunk);
            readLine(in); // the CRLF after the chunk data
        }
    }

    /** A line without its CRLF (or bare LF), or null at end of stream before any byte. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            if (line.size() >= MAX_LINE) {
                throw new BadRequest("line too long");
            }
            line.write(b);
        }
        if (line.size() == 0) {
            return null;
        }
        throw new BadRequest("connection closed inside a line");
    }

    /** Status line, headers and body in ONE byte array, so the socket sees one write (pitfall P17). */
    static byte[] response(int status, Map<String, String> headers, byte[] body, boolean keepAlive) {
        StringBuilder head = new StringBuilder(256);
        head.append("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(body.length).append("\r\n");
        head.append("Connection: ").append(keepAlive ? "keep-alive" : "close").append("\r\n\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return all;
    }

    static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 413 -> "Payload Too Large";
            case 422 -> "Unprocessable Entity";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 529 -> "Overloaded";
            default -> "Status " + status;
        };
    }
}

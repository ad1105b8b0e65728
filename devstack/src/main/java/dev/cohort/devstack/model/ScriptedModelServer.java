package dev.cohort.devstack.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.Set;

/** A scripted OpenAI-compatible chat-completions server on 127.0.0.1, answering from ordered scenario rules. */
public final class ScriptedModelServer implements AutoCloseable {

    /** The model id always listed by {@code GET /v1/models} and used when a request names none. */
    public static final String DEFAULT_MODEL = "scripted";

    private static final int UNMATCHED_TEXT_LIMIT = 300;
    // Idle keep-alive connections are closed after this, so leaked client pools do not pin threads forever;
    // it is longer than the JDK (30 s) and Vert.x (60 s) client pool timeouts, so clients close first.
    private static final int IDLE_TIMEOUT_MS = 5 * 60 * 1000;
    private static final Map<String, String> JSON_HEADERS = Map.of("Content-Type", "application/json");

    private final ServerSocket serverSocket;
    private final ExecutorService executor;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong toolCallIds = new AtomicLong();
    private volatile boolean closed;

    // Rule selection, per-agent call counters and the log change together under this lock, so that concurrent
    // requests each get a distinct call number and a rule with "times" never answers more often than allowed.
    private final Object lock = new Object();
    private final List<RuleState> rules = new ArrayList<>();
    private final List<RecordedRequest> log = new ArrayList<>();
    private final Map<String, Integer> callsByAgent = new HashMap<>();
    private long sequence;
    /** Who sees each model request and its answer as they cross the wire ({@link #tap}); null: nobody (the default). */
    private volatile Consumer<Exchange> tap;

    private ScriptedModelServer(ServerSocket serverSocket) {
        this.serverSocket = serverSocket;
        AtomicInteger threads = new AtomicInteger();
        // A cached pool: one thread per open keep-alive connection plus the acceptor; idle threads die after 30 s.
        this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "scripted-model-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.execute(this::acceptLoop);
    }

    /** Starts a server on 127.0.0.1 at {@code port}, or on a free port when {@code port} is 0. */
    public static ScriptedModelServer start(int port) {
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 128);
            return new ScriptedModelServer(socket);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the scripted model server on port " + port, e);
        }
    }

    /** Starts a server on a free port with a scenario already loaded. */
    public static ScriptedModelServer start(int port, Scenario scenario) {
        ScriptedModelServer server = start(port);
        server.load(scenario);
        return server;
    }

    public int port() {
        return serverSocket.getLocalPort();
    }

    /** The OpenAI base URL to configure in clients, e.g. {@code http://127.0.0.1:1234/v1}. */
    public String baseUrl() {
        return adminUrl() + "/v1";
    }

    /** The root URL, for {@link ScriptedModelClient} and the {@code /__admin} endpoints. */
    public String adminUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** Replaces the rules; call counters and the request log are kept. */
    public void load(Scenario scenario) {
        synchronized (lock) {
            rules.clear();
            append(scenario);
        }
    }

    public void load(String scenarioJson) {
        load(Scenario.parse(scenarioJson));
    }

    public void loadResource(String classpathResource) {
        load(Scenario.fromResource(classpathResource));
    }

    public void loadFile(Path file) {
        load(Scenario.fromFile(file));
    }

    /** Adds rules after the current ones (they only answer what the earlier rules do not). */
    public void append(Scenario scenario) {
        synchronized (lock) {
            for (Rule rule : scenario.rules()) {
                rules.add(new RuleState(rule));
            }
        }
    }

    /**
     * A reply computed from the request, for what a fixed rule cannot say (e.g. the reliability scale run: a lead
     * creating tasks blocked by the ids earlier tool results returned). Asked before the rules for requests whose agent
     * ({@code user}) matches {@code agentRegex}, under the server's lock (so it must be quick); {@code null} leaves the
     * request to the next responder and then the rules. The request log names the reply {@code name}.
     */
    public void respond(String name, String agentRegex, Function<JsonNode, Reply> reply) {
        Pattern agent = Pattern.compile(agentRegex);
        synchronized (lock) {
            responders.add(new Responder(name, agent, reply));
        }
    }

    private record Responder(String name, Pattern agent, Function<JsonNode, Reply> reply) {
    }

    private final List<Responder> responders = new ArrayList<>();

    /** Clears the rules, the request log, the per-agent call counters and the tool-call id counter. */
    public void reset() {
        synchronized (lock) {
            rules.clear();
            responders.clear();
            log.clear();
            callsByAgent.clear();
            sequence = 0;
            toolCallIds.set(0);
            anthropic.forget();
        }
    }

    /**
     * Forgets the requests received so far, keeping the rules and the call counters: a long benchmark takes what it
     * needs of each step and clears the log, so the server does not hold every body it was sent (a heap of hundreds
     * of MB whose collections paused the broker and the model in this JVM).
     */
    public void clearLog() {
        synchronized (lock) {
            log.clear();
        }
    }

    /**
     * One model request ({@code POST} on chat completions or messages) and its answer, with the bytes as they crossed
     * the wire: the request's body as the client sent it (on the messages wire, before its translation), the answer's
     * body before a rule's delay or truncation. {@code seq} is the request log's number ({@link RecordedRequest#seq}),
     * 0 when the request was refused before it was numbered.
     */
    public record Exchange(long seq, String path, byte[] request, int status, byte[] response) {
    }

    /**
     * Hands every model request and its answer to {@code tap} (null stops it): for a caller that measures the bodies
     * as sent, such as the round benchmark's prompt-cache figure, which the parsed (and, on the messages wire,
     * translated) body of {@link #requests()} cannot give. Off by default, so the server keeps no body beyond its log's.
     * Called on the connection thread before the answer is written, so it should only hand the exchange on.
     */
    public void tap(Consumer<Exchange> tap) {
        this.tap = tap;
    }

    /** Every chat-completions request received since the last reset (or {@link #clearLog}), in arrival order. */
    public List<RecordedRequest> requests() {
        synchronized (lock) {
            return List.copyOf(log);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            serverSocket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : connections) {
            closeQuietly(socket);
        }
        executor.shutdownNow();
    }

    // ---------------------------------------------------------------- connections

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("[scripted-model] accept failed: " + e);
                }
                return;
            }
            try {
                executor.execute(() -> serve(socket));
            } catch (RejectedExecutionException e) {
                closeQuietly(socket);
            }
        }
    }

    private void serve(Socket socket) {
        connections.add(socket);
        try (socket) {
            // P17: no Nagle, so the single response write leaves at once instead of waiting for a delayed ACK.
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.setSoTimeout(IDLE_TIMEOUT_MS);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            OutputStream out = socket.getOutputStream();
            while (!closed) {
                HttpWire.Request request;
                try {
                    request = HttpWire.read(in, out);
                } catch (HttpWire.BadRequest e) {
                    out.write(HttpWire.response(400, JSON_HEADERS,
                            openAiError("Malformed HTTP request: " + e.getMessage(), "invalid_request_error", null, null),
                            false));
                    out.flush();
                    return;
                }
                if (request == null) {
                    return;
                }
                Response response = handle(request);
                Consumer<Exchange> seen = tap;
                if (seen != null && request.method().equals("POST") && isModelPath(request.path())) {
                    String id = response.headers().getOrDefault("x-request-id", "req_scripted_0");
                    seen.accept(new Exchange(Long.parseLong(id.substring(id.lastIndexOf('_') + 1)), request.path(),
                            request.body(), response.status(), response.body()));
                }
                if (response.delayMs > 0) {
                    Thread.sleep(response.delayMs);
                }
                if (response.cutAt >= 0) {
                    // a truncated response: the whole length declared, only the first cutAt bytes sent, then closed
                    byte[] whole = HttpWire.response(response.status, response.headers, response.body, false);
                    int headLength = whole.length - response.body.length;
                    out.write(whole, 0, headLength + Math.min(response.cutAt, response.body.length));
                    out.flush();
                    return;
                }
                boolean keepAlive = request.keepAlive() && !closed;
                out.write(HttpWire.response(response.status, response.headers, response.body, keepAlive));
                out.flush();
                if (!keepAlive) {
                    return;
                }
            }
        } catch (SocketTimeoutException | SocketException e) {
            // idle keep-alive connection, or the peer went away: nothing to answer
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                System.err.println("[scripted-model] connection failed: " + e);
            }
        } finally {
            connections.remove(socket);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    // ---------------------------------------------------------------- routing

    /** A response to write; the delay is applied by the connection thread, outside every lock. */
    private record Response(int status, Map<String, String> headers, byte[] body, long delayMs, int cutAt) {

        Response(int status, Map<String, String> headers, byte[] body, long delayMs) {
            this(status, headers, body, delayMs, -1);
        }

        static Response json(int status, byte[] body) {
            return new Response(status, JSON_HEADERS, body, 0);
        }

        /** Same response with OpenAI's {@code x-request-id} header, which names the request's log entry. */
        Response withRequestIdHeader(long seq) {
            Map<String, String> all = new LinkedHashMap<>(headers);
            all.put("x-request-id", "req_scripted_" + seq);
            return new Response(status, all, body, delayMs, cutAt);
        }
    }

    /** Chat completions or Anthropic's messages: the paths a model request arrives on. */
    private static boolean isModelPath(String path) {
        return path.endsWith("/chat/completions") || path.equals("/v1/messages") || path.equals("/messages");
    }

    private Response handle(HttpWire.Request request) {
        String path = request.path();
        String method = request.method();
        try {
            if (path.endsWith("/chat/completions")) {
                return method.equals("POST") ? chatCompletions(request) : methodNotAllowed(request);
            }
            if (path.equals("/v1/messages") || path.equals("/messages")) {
                return method.equals("POST") ? messages(request) : methodNotAllowed(request);
            }
            if (path.equals("/v1/models") || path.equals("/models")) {
                return method.equals("GET") ? models() : methodNotAllowed(request);
            }
            switch (path) {
                case "/__admin/scenario" -> {
                    if (!method.equals("POST")) {
                        return methodNotAllowed(request);
                    }
                    return loadOverHttp(request);
                }
                case "/__admin/reset" -> {
                    if (!method.equals("POST")) {
                        return methodNotAllowed(request);
                    }
                    reset();
                    return Response.json(200, "{\"reset\":true}".getBytes(StandardCharsets.UTF_8));
                }
                case "/__admin/requests" -> {
                    if (!method.equals("GET")) {
                        return methodNotAllowed(request);
                    }
                    ArrayNode array = Json.MAPPER.createArrayNode();
                    requests().forEach(r -> array.add(r.toJson()));
                    return Response.json(200, bytes(array));
                }
                case "/__admin/health", "/" -> {
                    return Response.json(200, "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8));
                }
                default -> {
                    return Response.json(404, openAiError("Invalid URL (" + method + " " + path + ")",
                            "invalid_request_error", null, null));
                }
            }
        } catch (RuntimeException e) {
            System.err.println("[scripted-model] internal error on " + method + " " + path + ": " + e);
            return Response.json(500, openAiError("Scripted model internal error: " + e, "server_error", null, null));
        }
    }

    private static Response methodNotAllowed(HttpWire.Request request) {
        return Response.json(405, openAiError("Method " + request.method() + " not allowed on " + request.path(),
                "invalid_request_error", null, null));
    }

    private Response loadOverHttp(HttpWire.Request request) {
        Scenario scenario;
        try {
            scenario = Scenario.parse(new String(request.body(), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return Response.json(400, openAiError(e.getMessage(), "invalid_scenario", null, null));
        }
        int total;
        synchronized (lock) {
            if ("true".equalsIgnoreCase(request.query().get("append"))) {
                append(scenario);
            } else {
                load(scenario);
            }
            total = rules.size();
        }
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("loaded", scenario.rules().size());
        body.put("rules", total);
        return Response.json(200, bytes(body));
    }

    private Response models() {
        Set<String> ids = new LinkedHashSet<>();
        ids.add(DEFAULT_MODEL);
        synchronized (lock) {
            for (RuleState state : rules) {
                String model = state.rule.effectiveMatch().model();
                if (model != null) {
                    ids.add(model);
                }
            }
        }
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("object", "list");
        ArrayNode data = body.putArray("data");
        for (String id : ids) {
            data.addObject().put("id", id).put("object", "model").put("created", 0).put("owned_by", "cohort-devstack");
        }
        return Response.json(200, bytes(body));
    }

    // ---------------------------------------------------------------- chat completions

    private Response chatCompletions(HttpWire.Request request) {
        String raw = new String(request.body(), StandardCharsets.UTF_8);
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(raw);
        } catch (JsonProcessingException e) {
            json = null;
        }
        if (json == null || !json.isObject()) {
            long seq = recordRejected(null, null, TextNode.valueOf(raw), 400);
            // OpenAI's own wording for an unparsable body.
            return Response.json(400, openAiError("We could not parse the JSON body of your request."
                    + " (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects"
                    + " a JSON payload, but what was sent was not valid JSON.)", "invalid_request_error", null, null))
                    .withRequestIdHeader(seq);
        }
        String agent = json.path("user").isTextual() ? json.path("user").asText() : null;
        String model = json.path("model").isTextual() ? json.path("model").asText() : null;
        if (!json.path("messages").isArray()) {
            long seq = recordRejected(agent, model, json, 400);
            return Response.json(400, openAiError("Missing required parameter: 'messages'.", "invalid_request_error",
                    "messages", "missing_required_parameter")).withRequestIdHeader(seq);
        }
        if (json.path("stream").asBoolean(false)) {
            long seq = recordRejected(agent, model, json, 400);
            return Response.json(400, openAiError("Streaming is not supported by the scripted model server:"
                    + " send \"stream\": false.", "invalid_request_error", "stream", "unsupported_value"))
                    .withRequestIdHeader(seq);
        }

        Response injected = injectedFault(agent, model, json);
        if (injected != null) {
            return injected;
        }
        RequestView view = new RequestView(json, agent, model);
        RuleState chosen = null;
        long seq;
        int status;
        synchronized (lock) {
            seq = ++sequence;
            view.call = callsByAgent.merge(agent == null ? "" : agent, 1, Integer::sum);
            for (Responder r : responders) {
                Reply computed = agent != null && r.agent().matcher(agent).matches() ? r.reply().apply(json) : null;
                if (computed != null) {
                    chosen = new RuleState(new Rule(r.name(), Match.ANY, null, computed));
                    break;
                }
            }
            for (RuleState state : chosen != null ? List.<RuleState>of() : rules) {
                if (state.matches(view) && state.tryConsume()) {
                    chosen = state;
                    break;
                }
            }
            status = chosen == null ? 500
                    : chosen.rule.reply().error() != null ? chosen.rule.reply().error().resolved().status() : 200;
            log.add(new RecordedRequest(seq, Instant.now(), agent, view.call, model, json,
                    chosen == null ? null : chosen.rule.name(), status));
        }
        if (chosen == null) {
            String message = "Scripted model: no rule matched request #" + seq + " from agent "
                    + (agent == null ? "<none: no 'user' field>" : "'" + agent + "'") + " (call " + view.call
                    + ", model " + (model == null ? "<none>" : "'" + model + "'") + "); last message ("
                    + (view.lastRole == null ? "none" : view.lastRole) + "): \""
                    + truncate(view.lastText == null ? "" : view.lastText, UNMATCHED_TEXT_LIMIT) + "\"";
            System.err.println("[scripted-model] " + message);
            return Response.json(500, openAiError(message, "scripted_model_error", null, "no_rule_matched"))
                    .withRequestIdHeader(seq);
        }
        Reply reply = chosen.rule.reply();
        long delay = reply.delayMs() == null ? 0 : reply.delayMs();
        if (reply.error() != null) {
            return errorResponse(reply.error().resolved(), seq, delay);
        }
        byte[] body = reply.rawBody() != null ? reply.rawBody().getBytes(StandardCharsets.UTF_8)
                : bytes(completion(reply, view, raw, seq));
        Map<String, String> headers = new LinkedHashMap<>(JSON_HEADERS);
        headers.put("x-request-id", "req_scripted_" + seq);
        return new Response(200, headers, body, delay, reply.truncateAt() == null ? -1 : reply.truncateAt());
    }

    // ---------------------------------------------------------------- Anthropic's Messages API

    /** The prompts seen on the Messages API, for its cache figures. */
    private final AnthropicWire anthropic = new AnthropicWire();

    /** {@code POST /v1/messages}: answered by the same rules as chat completions ({@link AnthropicWire}). */
    private Response messages(HttpWire.Request request) {
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(request.body());
        } catch (IOException e) {
            json = null;
        }
        if (json == null || !json.isObject()) {
            return Response.json(400, AnthropicWire.toError(400, openAiError("the request body is not valid JSON",
                    "invalid_request_error", null, null)));
        }
        ObjectNode translated = AnthropicWire.toChatCompletions(json);
        Response r = chatCompletions(new HttpWire.Request("POST", "/v1/chat/completions", request.query(),
                request.headers(), bytes(translated), request.keepAlive()));
        if (r.status() != 200) {
            AnthropicWire.Error e = AnthropicWire.error(r.status(), r.body());
            return new Response(e.status(), r.headers(), e.body(), r.delayMs(), r.cutAt());
        }
        JsonNode completion;
        try {
            completion = Json.MAPPER.readTree(r.body());
        } catch (IOException e) {
            return r; // a rule's raw (malformed) body goes out as written
        }
        if (completion == null || !completion.path("choices").path(0).path("message").isObject()) {
            return r; // an unusable completion stays unusable on this wire too
        }
        String id = r.headers().getOrDefault("x-request-id", "req_scripted_0");
        long seq = Long.parseLong(id.substring(id.lastIndexOf('_') + 1));
        return new Response(200, r.headers(), bytes(anthropic.toMessage(completion, json, seq)), r.delayMs(),
                r.cutAt());
    }

    // ---------------------------------------------------------------- fault injection

    /** Statuses answered in turn while a fault is on (500, then 529 "overloaded", as Anthropic's API sends). */
    private volatile int[] faultStatuses;
    /** Fail the request when {@code floor(n * fraction)} grows with the n-th request: deterministic, no randomness. */
    private volatile double faultFraction;
    private final AtomicLong faultSeen = new AtomicLong();
    private final AtomicLong faultsAnswered = new AtomicLong();

    /**
     * From now on answers {@code fraction} of the chat-completion requests (0 to 1, spread evenly: 0.5 = every
     * second one) with an HTTP error instead of a rule's reply, cycling through {@code statuses} (e.g. 500, 529).
     * Such a request is recorded with the rule {@code "__fault"} and does not consume a rule. {@link #clearFault()}
     * ends it. Nothing changes for a server on which this is never called.
     */
    public void injectFault(double fraction, int... statuses) {
        if (fraction <= 0 || fraction > 1 || statuses.length == 0) {
            throw new IllegalArgumentException("fraction must be in (0, 1] and at least one status given");
        }
        faultSeen.set(0);
        faultFraction = fraction;
        faultStatuses = statuses.clone();
    }

    /** Ends {@link #injectFault}: every request is answered by the rules again. */
    public void clearFault() {
        faultStatuses = null;
    }

    /** How many requests were answered with an injected error since the server started. */
    public long faultsAnswered() {
        return faultsAnswered.get();
    }

    private Response injectedFault(String agent, String model, JsonNode json) {
        int[] statuses = faultStatuses;
        if (statuses == null) {
            return null;
        }
        long n = faultSeen.incrementAndGet();
        if (Math.floor(n * faultFraction) == Math.floor((n - 1) * faultFraction)) {
            return null;
        }
        long k = faultsAnswered.incrementAndGet();
        int status = statuses[(int) ((k - 1) % statuses.length)];
        long seq;
        synchronized (lock) {
            seq = ++sequence;
            log.add(new RecordedRequest(seq, Instant.now(), agent, 0, model, json, "__fault", status));
        }
        String type = status == 529 ? "overloaded_error" : "server_error";
        return Response.json(status, openAiError("Scripted model: injected fault (HTTP " + status + ")", type, null, null))
                .withRequestIdHeader(seq);
    }

    private long recordRejected(String agent, String model, JsonNode body, int status) {
        synchronized (lock) {
            long seq = ++sequence;
            log.add(new RecordedRequest(seq, Instant.now(), agent, 0, model, body, null, status));
            return seq;
        }
    }

    private static Response errorResponse(Reply.Error error, long seq, long delay) {
        Map<String, String> headers = new LinkedHashMap<>(JSON_HEADERS);
        headers.put("x-request-id", "req_scripted_" + seq);
        if (error.retryAfter() != null) {
            headers.put("Retry-After", error.retryAfter());
        }
        if (error.retryAfterMs() != null) {
            headers.put("retry-after-ms", error.retryAfterMs());
        }
        byte[] body;
        if ("anthropic".equals(error.format())) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            root.put("type", "error");
            root.putObject("error").put("type", error.type()).put("message", error.message());
            body = bytes(root);
        } else {
            body = openAiError(error.message(), error.type(), error.param(), error.code());
        }
        return new Response(error.status(), headers, body, delay);
    }

    private ObjectNode completion(Reply reply, RequestView view, String raw, long seq) {
        List<Reply.ToolCall> calls = reply.toolCalls() == null ? List.of() : reply.toolCalls();
        String text = reply.text() == null ? null : view.substitute(reply.text());
        int completionChars = text == null ? 0 : text.length();

        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-scripted-" + seq);
        root.put("object", "chat.completion");
        root.put("created", Instant.now().getEpochSecond());
        root.put("model", view.model == null ? DEFAULT_MODEL : view.model);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        // OpenAI sends content null next to tool calls; an empty answer without tool calls is "".
        message.put("content", text != null ? text : calls.isEmpty() ? "" : null);
        if (!calls.isEmpty()) {
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (int i = 0; i < calls.size(); i++) {
                Reply.ToolCall call = calls.get(i);
                String arguments = i == 0 && reply.rawArguments() != null ? reply.rawArguments()
                        : call.arguments() == null || call.arguments().isNull() ? "{}"
                        : call.arguments().isTextual() ? call.arguments().asText()
                        : call.arguments().toString();
                ObjectNode toolCall = toolCalls.addObject();
                toolCall.put("id", call.id() != null ? call.id() : "call_" + toolCallIds.incrementAndGet());
                toolCall.put("type", "function");
                toolCall.putObject("function").put("name", call.name()).put("arguments", arguments);
                completionChars += call.name().length() + arguments.length();
            }
        }
        message.putNull("refusal");
        choice.putNull("logprobs");
        choice.put("finish_reason", reply.finishReason() != null ? reply.finishReason()
                : calls.isEmpty() ? "stop" : "tool_calls");

        Reply.Usage given = reply.usage();
        int prompt = given != null && given.promptTokens() != null ? given.promptTokens()
                : Math.max(1, (raw.length() + 3) / 4);
        int completion = given != null && given.completionTokens() != null ? given.completionTokens()
                : (completionChars + 3) / 4;
        int total = given != null && given.totalTokens() != null ? given.totalTokens() : prompt + completion;
        ObjectNode usage = root.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", total);
        if (given != null && given.cachedTokens() != null) {
            usage.putObject("prompt_tokens_details").put("cached_tokens", given.cachedTokens());
        }
        root.put("system_fingerprint", "fp_scripted");
        return root;
    }

    // ---------------------------------------------------------------- helpers

    static byte[] openAiError(String message, String type, String param, String code) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", message);
        error.put("type", type);
        error.put("param", param);
        error.put("code", code);
        return bytes(root);
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return Json.MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String truncate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }

    /** The parts of a request that rules look at, extracted once. */
    private static final class RequestView {
        final String agent;
        final String model;
        final List<String> roles = new ArrayList<>();
        final List<String> texts = new ArrayList<>();
        final String lastRole;
        final String lastText;
        final String lastUserText;
        final String systemText;
        final boolean hasTools;
        final boolean hasToolResult;
        int call;

        RequestView(JsonNode json, String agent, String model) {
            this.agent = agent;
            this.model = model;
            String lastUser = null;
            StringBuilder system = new StringBuilder();
            boolean toolResult = false;
            for (JsonNode message : json.path("messages")) {
                String role = message.path("role").asText("");
                String text = text(message.path("content"));
                roles.add(role);
                texts.add(text);
                switch (role) {
                    case "user" -> lastUser = text;
                    case "system", "developer" -> system.append(system.isEmpty() ? "" : "\n").append(text);
                    case "tool", "function" -> toolResult = true;
                    default -> {
                        // assistant messages only count for lastMessage / anyMessage
                    }
                }
            }
            this.lastRole = roles.isEmpty() ? null : roles.getLast();
            this.lastText = texts.isEmpty() ? null : texts.getLast();
            this.lastUserText = lastUser;
            this.systemText = system.toString();
            this.hasTools = (json.path("tools").isArray() && !json.path("tools").isEmpty())
                    || (json.path("functions").isArray() && !json.path("functions").isEmpty());
            this.hasToolResult = toolResult;
        }

        /** Message text: a string content, or the text parts of a content array joined by newlines. */
        private static String text(JsonNode content) {
            if (content.isTextual()) {
                return content.asText();
            }
            if (content.isArray()) {
                StringBuilder text = new StringBuilder();
                for (JsonNode part : content) {
                    if (part.isTextual() || part.path("text").isTextual()) {
                        text.append(text.isEmpty() ? "" : "\n").append(part.isTextual() ? part.asText() : part.path("text").asText());
                    }
                }
                return text.toString();
            }
            return "";
        }

        String substitute(String template) {
            if (!template.contains("{{")) {
                return template;
            }
            return template
                    .replace("{{lastMessage}}", lastText == null ? "" : lastText)
                    .replace("{{lastUserMessage}}", lastUserText == null ? "" : lastUserText)
                    .replace("{{agent}}", agent == null ? "" : agent)
                    .replace("{{model}}", model == null ? DEFAULT_MODEL : model)
                    .replace("{{call}}", Integer.toString(call));
        }
    }

    /** A loaded rule with its compiled regexes and its remaining answers. */
    private static final class RuleState {
        final Rule rule;
        final Match match;
        final Pattern agentPattern;
        final Pattern agentRegex;
        final Pattern lastMessage;
        final Pattern lastUserMessage;
        final Pattern anyMessage;
        final Pattern system;
        int remaining; // guarded by the server lock; -1 = unlimited

        RuleState(Rule rule) {
            this.rule = rule;
            this.match = rule.effectiveMatch();
            this.agentPattern = match.agent() != null && match.agent().startsWith("^") ? Match.regex(match.agent()) : null;
            this.agentRegex = compile(match.agentRegex());
            this.lastMessage = compile(match.lastMessage());
            this.lastUserMessage = compile(match.lastUserMessage());
            this.anyMessage = compile(match.anyMessage());
            this.system = compile(match.system());
            this.remaining = rule.times() == null ? -1 : rule.times();
        }

        private static Pattern compile(String regex) {
            return regex == null ? null : Match.regex(regex);
        }

        boolean matches(RequestView view) {
            if (match.agent() != null) {
                if (view.agent == null) {
                    return false;
                }
                if (agentPattern != null ? !agentPattern.matcher(view.agent).find() : !match.agent().equals(view.agent)) {
                    return false;
                }
            }
            if (agentRegex != null && (view.agent == null || !agentRegex.matcher(view.agent).find())) {
                return false;
            }
            if (match.model() != null && !match.model().equals(view.model)) {
                return false;
            }
            if (match.call() != null && match.call() != view.call) {
                return false;
            }
            if (match.hasTools() != null && match.hasTools() != view.hasTools) {
                return false;
            }
            if (match.hasToolResult() != null && match.hasToolResult() != view.hasToolResult) {
                return false;
            }
            if (match.lastRole() != null && !match.lastRole().equals(view.lastRole)) {
                return false;
            }
            if (lastMessage != null && (view.lastText == null || !lastMessage.matcher(view.lastText).find())) {
                return false;
            }
            if (lastUserMessage != null
                    && (view.lastUserText == null || !lastUserMessage.matcher(view.lastUserText).find())) {
                return false;
            }
            if (system != null && !system.matcher(view.systemText).find()) {
                return false;
            }
            if (anyMessage != null && view.texts.stream().noneMatch(t -> anyMessage.matcher(t).find())) {
                return false;
            }
            return true;
        }

        boolean tryConsume() {
            if (remaining == 0) {
                return false;
            }
            if (remaining > 0) {
                remaining--;
            }
            return true;
        }
    }

    // ---------------------------------------------------------------- standalone

    /** Runs the server until killed: {@code --port N} (default 0) {@code --scenario file.json|classpath:res.json}. */
    public static void main(String[] args) throws InterruptedException {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println("usage: ScriptedModelServer [--port N] [--scenario file.json|classpath:res.json]");
            return;
        }
        ScriptedModelServer server = startFromArgs(args);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "scripted-model-shutdown"));
        int ruleCount;
        synchronized (server.lock) {
            ruleCount = server.rules.size();
        }
        System.out.println("Scripted model server: base URL " + server.baseUrl() + ", admin " + server.adminUrl()
                + "/__admin, " + ruleCount + " rule(s)");
        stopped.await();
    }

    /** The testable part of {@link #main}: parses the arguments, starts the server and loads the scenario. */
    static ScriptedModelServer startFromArgs(String[] args) {
        int port = 0;
        String scenario = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(requireValue(args, ++i, "--port"));
                case "--scenario" -> scenario = requireValue(args, ++i, "--scenario");
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]
                        + " (usage: --port N --scenario file.json|classpath:res.json)");
            }
        }
        Scenario loaded = scenario == null ? Scenario.empty()
                : scenario.startsWith("classpath:") ? Scenario.fromResource(scenario.substring("classpath:".length()))
                : Scenario.fromFile(Path.of(scenario));
        return start(port, loaded);
    }

    private static String requireValue(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}

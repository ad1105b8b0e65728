package dev.cohort.core.llm;

import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.recovery.ProviderHttpException;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.exception.TimeoutException;
import java.io.UncheckedIOException;
import java.net.URI;
import dev.cohort.core.http.DirectHttp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The client of one configured model on an OpenAI-compatible endpoint: one {@code POST chat/completions} per call,
 * the body written by {@link ChatCompletionsWire} straight from the engine's messages (no langchain4j conversion),
 * the tool set's schema JSON reused while the tool set is the same. It makes exactly one attempt (retries, backoff
 * and fallback are the engine's); an error answer is thrown as a {@link ProviderHttpException} with its headers (so
 * recovery honours {@code Retry-After}), a timeout as langchain4j's {@link TimeoutException}, a connection failure as
 * an {@link UncheckedIOException}, an unusable 200 as a
 * {@link dev.cohort.core.engine.recovery.MalformedModelResponse} — the same exceptions the langchain4j client threw,
 * so {@link dev.cohort.core.engine.recovery.ModelFailure#classify} reads them as before.
 */
public final class ChatCompletionsClient implements ModelClient {

    /** Tool sets kept serialised; a host offers a few (lead, teammates, subagents), so more means churn: start over. */
    private static final int MAX_TOOL_SETS = 32;

    private final String modelName;
    private final URI endpoint;
    private final String authorization;
    private final Duration timeout;
    private final DirectHttp http;
    /** The last tool set seen (usually the same list object for a whole turn) and its JSON: no hashing on a hit. */
    private volatile ToolsJson last;
    /** Other tool sets by value: a new turn builds an equal list. */
    private final Map<List<ToolSpecification>, String> toolSets = new ConcurrentHashMap<>();

    /** A tool set and its {@code tools} JSON. */
    private record ToolsJson(List<ToolSpecification> specs, String json) {
    }

    public ChatCompletionsClient(LlmSettings settings, String modelName) {
        this.modelName = Objects.requireNonNull(modelName, "modelName");
        String base = settings.baseUrl().endsWith("/") ? settings.baseUrl() : settings.baseUrl() + "/";
        this.endpoint = URI.create(base + "chat/completions");
        // a key is required by the format; an unconfigured one is refused by a real provider with a clear 401
        this.authorization = "Bearer " + (settings.apiKey().isBlank() ? "not-configured" : settings.apiKey());
        this.timeout = settings.timeout();
        // HTTP/1.1 keep-alive (h2c upgrade is not spoken by every OpenAI-compatible server); a plain http:// endpoint
        // (a local or in-cluster model server, a gateway) is called on the agent's own thread, https through
        // java.net.http (DirectHttp)
        this.http = new DirectHttp(timeout);
    }

    /** The model this client was built for. */
    public String modelName() {
        return modelName;
    }

    /** Sends one request; {@code request.model()} is the name on the wire (the gateway sets it to this client's). */
    @Override
    public Reply chat(Request request) {
        byte[] body = ChatCompletionsWire.request(request.model() == null ? modelName : request.model(),
                request.agentId(), request.system(), request.messages(), toolsJson(request.tools()),
                request.maxOutputTokens());
        return ChatCompletionsWire.reply(ModelHttp.post(http, endpoint, List.of("Authorization", authorization,
                "Content-Type", "application/json"), body, timeout));
    }

    /** The tool set's JSON, serialised once per distinct tool set (it changes only when the tools offered do). */
    String toolsJson(List<ToolSpecification> specs) {
        if (specs == null || specs.isEmpty()) {
            return null;
        }
        ToolsJson l = last;
        if (l != null && l.specs() == specs) {
            return l.json();
        }
        String json = toolSets.get(specs);
        if (json == null) {
            json = ChatCompletionsWire.tools(specs);
            if (toolSets.size() >= MAX_TOOL_SETS) {
                toolSets.clear();
            }
            toolSets.put(List.copyOf(specs), json);
        }
        last = new ToolsJson(specs, json);
        return json;
    }
}

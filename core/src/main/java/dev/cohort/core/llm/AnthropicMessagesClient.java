package dev.cohort.core.llm;

import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.recovery.ProviderHttpException;
import dev.cohort.core.http.DirectHttp;
import dev.langchain4j.exception.TimeoutException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The client of one configured model on Anthropic's Messages API: one {@code POST messages} per call, written by
 * {@link AnthropicMessagesWire} from the engine's messages, with the prompt-caching breakpoints. Like
 * {@link ChatCompletionsClient}, it makes exactly one attempt and throws what recovery classifies: an error answer as
 * a {@link ProviderHttpException} with its headers ({@code retry-after}), a timeout as a {@link TimeoutException}, a
 * connection failure as an {@link UncheckedIOException}.
 */
public final class AnthropicMessagesClient implements ModelClient {

    private final String modelName;
    private final URI endpoint;
    private final String apiKey;
    private final Duration timeout;
    private final DirectHttp http;

    public AnthropicMessagesClient(LlmSettings settings, String modelName) {
        this.modelName = Objects.requireNonNull(modelName, "modelName");
        String base = settings.anthropicBaseUrl().endsWith("/") ? settings.anthropicBaseUrl()
                : settings.anthropicBaseUrl() + "/";
        this.endpoint = URI.create(base + "messages");
        // an unconfigured key is refused by the provider with a clear 401
        this.apiKey = settings.anthropicApiKey().isBlank() ? "not-configured" : settings.anthropicApiKey();
        this.timeout = settings.timeout();
        this.http = new DirectHttp(timeout);
    }

    /** The model this client was built for. */
    public String modelName() {
        return modelName;
    }

    @Override
    public Reply chat(Request request) {
        byte[] body = AnthropicMessagesWire.request(request.model() == null ? modelName : request.model(),
                request.agentId(), request.system(), request.messages(), request.tools(), request.maxOutputTokens());
        return AnthropicMessagesWire.reply(ModelHttp.post(http, endpoint, List.of("x-api-key", apiKey,
                "anthropic-version", AnthropicMessagesWire.VERSION, "Content-Type", "application/json"), body, timeout));
    }
}

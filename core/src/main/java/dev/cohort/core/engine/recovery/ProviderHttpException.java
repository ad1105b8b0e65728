package dev.cohort.core.engine.recovery;

import dev.langchain4j.exception.HttpException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An HTTP error answer from the model provider with its headers (langchain4j's {@link HttpException} keeps only the
 * status and the body; {@code Retry-After} needs the headers). Thrown by {@link dev.cohort.core.llm.ChatCompletionsClient}; an in-process
 * {@link dev.cohort.core.engine.ModelClient} may throw it too.
 */
public class ProviderHttpException extends HttpException {
    private final transient Map<String, List<String>> headers;

    public ProviderHttpException(int statusCode, String body, Map<String, List<String>> headers) {
        super(statusCode, body);
        Map<String, List<String>> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        if (headers != null) {
            headers.forEach((k, v) -> {
                if (k != null) {
                    h.put(k, List.copyOf(v));
                }
            });
        }
        this.headers = h;
    }

    /** The response body (the OpenAI error envelope as a rule). */
    public String body() {
        return getMessage();
    }

    /** The first value of a header, case-insensitively. */
    public Optional<String> header(String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? Optional.empty() : Optional.ofNullable(v.get(0));
    }
}

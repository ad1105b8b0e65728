package dev.cohort.core.engine.recovery;

import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * langchain4j's JDK HTTP client with one difference: an error answer is thrown as a {@link ProviderHttpException}
 * that keeps the response headers, so error recovery can honour {@code Retry-After} / {@code retry-after-ms}
 * (langchain4j's own client drops them). Streaming requests are delegated to {@link JdkHttpClient} unchanged.
 * Connection failures surface as {@link UncheckedIOException}, timeouts as langchain4j's {@link TimeoutException}.
 * {@link dev.cohort.core.llm.LlmGateway} builds one per configured model.
 */
public final class ProviderHttpClient implements HttpClient {
    private final java.net.http.HttpClient http;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    /** Built on the first streaming request only (Cohort never streams): one JDK client per model, not two. */
    private volatile HttpClient streaming;

    private ProviderHttpClient(Builder b) {
        java.net.http.HttpClient.Builder hb = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1);
        if (b.connectTimeout != null) {
            hb.connectTimeout(b.connectTimeout);
        }
        this.http = hb.build();
        this.connectTimeout = b.connectTimeout;
        this.readTimeout = b.readTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        java.net.http.HttpRequest.Builder rb = java.net.http.HttpRequest.newBuilder(URI.create(request.url()));
        request.headers().forEach((k, values) -> values.forEach(v -> rb.header(k, v)));
        rb.method(request.method().name(), request.body() == null
                ? java.net.http.HttpRequest.BodyPublishers.noBody()
                : java.net.http.HttpRequest.BodyPublishers.ofString(request.body()));
        if (readTimeout != null) {
            rb.timeout(readTimeout);
        }
        HttpResponse<String> r;
        try {
            r = http.send(rb.build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new TimeoutException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling the model", e);
        }
        if (r.statusCode() < 200 || r.statusCode() >= 300) {
            throw new ProviderHttpException(r.statusCode(), r.body(), r.headers().map());
        }
        return SuccessfulHttpResponse.builder().statusCode(r.statusCode()).headers(r.headers().map()).body(r.body())
                .build();
    }

    @Override
    public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        HttpClient s = streaming;
        if (s == null) {
            synchronized (this) {
                s = streaming;
                if (s == null) {
                    s = JdkHttpClient.builder().connectTimeout(connectTimeout).readTimeout(readTimeout).build();
                    streaming = s;
                }
            }
        }
        s.execute(request, parser, listener);
    }

    /** Builds a {@link ProviderHttpClient}; pass it to {@code OpenAiChatModel.builder().httpClientBuilder(...)}. */
    public static final class Builder implements HttpClientBuilder {
        private Duration connectTimeout;
        private Duration readTimeout;

        @Override
        public Duration connectTimeout() {
            return connectTimeout;
        }

        @Override
        public Builder connectTimeout(Duration d) {
            this.connectTimeout = d;
            return this;
        }

        @Override
        public Duration readTimeout() {
            return readTimeout;
        }

        @Override
        public Builder readTimeout(Duration d) {
            this.readTimeout = d;
            return this;
        }

        @Override
        public ProviderHttpClient build() {
            return new ProviderHttpClient(this);
        }
    }
}

package dev.cohort.core.llm;

import dev.cohort.core.engine.recovery.ProviderHttpException;
import dev.cohort.core.http.DirectHttp;
import dev.langchain4j.exception.TimeoutException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * One model request on the wire, as every provider's client sends it: one attempt, and its failure thrown as the
 * engine's recovery classifies it (an error answer as a {@link ProviderHttpException} with its headers, a timeout as
 * langchain4j's {@link TimeoutException}, a connection failure as an {@link UncheckedIOException}).
 */
final class ModelHttp {
    private ModelHttp() {
    }

    /** The 2xx answer's body to {@code POST endpoint}. */
    static byte[] post(DirectHttp http, URI endpoint, List<String> headers, byte[] body, Duration timeout) {
        DirectHttp.Response r;
        try {
            r = http.send("POST", endpoint, headers, body, timeout);
        } catch (HttpTimeoutException e) {
            throw new TimeoutException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling the model", e);
        }
        if (r.status() < 200 || r.status() >= 300) {
            throw new ProviderHttpException(r.status(), r.text(), r.headers());
        }
        return r.body();
    }
}

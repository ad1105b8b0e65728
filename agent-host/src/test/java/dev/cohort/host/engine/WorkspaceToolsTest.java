package dev.cohort.host.engine;

import dev.cohort.core.http.ServiceClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.toolrunner.ToolRunnerClient;
import dev.cohort.core.tools.workspace.WorkspaceCatalogue;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.devstack.Ports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A service's workspace tools come from the tool runner's catalogue: read once, waited for while the runner is not up,
 * a clear failure when it never comes. The runner here is a stand-in HTTP server serving the real catalogue
 * ({@link WorkspaceToolsFixture}); the services' suites read it from the real runner.
 */
class WorkspaceToolsTest {

    private static HttpServer runner(int port, String token) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        byte[] body = Json.write(WorkspaceToolsFixture.json()).getBytes(StandardCharsets.UTF_8);
        server.createContext("/internal/v1/tools", ex -> {
            boolean ok = ("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"));
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(ok ? 200 : 401, ok ? body.length : -1);
            if (ok) {
                ex.getResponseBody().write(body);
            }
            ex.close();
        });
        server.start();
        return server;
    }

    private static WorkspaceTools tools(int port, Duration wait) {
        return new WorkspaceTools(ToolRunnerWorkspace.connect("http://127.0.0.1:" + port, Optional.of("t0ken"),
                Duration.ofSeconds(5), ServiceClient.Retry.DEFAULT), wait);
    }

    @Test
    void aRunnerThatStartsLaterIsWaitedForAndItsCatalogueKept() throws Exception {
        int port = Ports.free();
        WorkspaceTools tools = tools(port, Duration.ofMinutes(2));
        assertThat(tools.loaded()).isEmpty();
        assertThat(tools.changesNothing("read_file")).isFalse(); // unknown yet: treated as a change
        CountDownLatch asking = new CountDownLatch(1);
        CompletableFuture<WorkspaceCatalogue> first = CompletableFuture.supplyAsync(() -> {
            asking.countDown();
            return tools.get();
        });
        assertThat(asking.await(30, TimeUnit.SECONDS)).isTrue();
        HttpServer server = runner(port, "t0ken");
        try {
            WorkspaceCatalogue c = first.get(2, TimeUnit.MINUTES);
            assertThat(c.names()).contains("bash", "file_tree");
            assertThat(tools.get()).isSameAs(c);
            assertThat(tools.changesNothing("read_file")).isTrue();
            assertThat(tools.changesNothing("bash")).isFalse();
        } finally {
            server.stop(0);
        }
    }

    @Test
    void noRunnerWithinTheWaitIsAClearFailureAndTheNextUseAsksAgain() throws Exception {
        int port = Ports.free();
        WorkspaceTools tools = tools(port, Duration.ZERO);
        assertThatThrownBy(tools::get).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot read the tool runner's catalogue of workspace tools");
        HttpServer server = runner(port, "t0ken");
        try {
            assertThat(tools.get().names()).contains("bash");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aRefusedRequestIsNotWaitedOn() throws Exception {
        int port = Ports.free();
        HttpServer server = runner(port, "another token");
        try {
            WorkspaceTools tools = tools(port, Duration.ofMinutes(2));
            assertThatThrownBy(tools::get).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot read the tool runner's catalogue").hasMessageContaining("401");
        } finally {
            server.stop(0);
        }
    }
}

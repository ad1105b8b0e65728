package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.OptionalProgram;
import dev.cohort.devstack.Ports;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small W3C WebDriver client for the browser test: starts Debian's {@code chromedriver} on a free port, opens one
 * headless Chromium session (fresh profile, no network services of its own) and speaks the standard JSON wire protocol
 * over {@code java.net.http} — no Selenium jars, no browser download. {@link #close()} ends the session (Chromium
 * quits) and stops the driver process it started.
 */
final class WebDriver implements AutoCloseable {

    private static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

    private final Process driver;
    private final String base;
    private final String session;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private WebDriver(Process driver, String base, String session) {
        this.driver = driver;
        this.base = base;
        this.session = session;
    }

    /** The two programs a session needs. */
    record Browser(Path chromium, Path chromedriver) {
    }

    /**
     * Chromium and chromedriver: {@code COHORT_CHROMIUM} / {@code COHORT_CHROMEDRIVER}, else {@code chromium} /
     * {@code chromedriver} on {@code PATH} (Debian's packages put them there). Without them the calling test is
     * skipped with one line saying how to install them ({@link OptionalProgram#CHROMIUM}), or fails under
     * {@code COHORT_TEST_REQUIRE_CHROMIUM=1}, which {@code .ci/run} sets.
     */
    static Browser browser() {
        Map<String, String> env = System.getenv();
        Optional<Path> chromium = locate(env, "COHORT_CHROMIUM", "chromium");
        Optional<Path> driver = locate(env, "COHORT_CHROMEDRIVER", "chromedriver");
        OptionalProgram.CHROMIUM.assume(chromium.isEmpty() ? Optional.of("chromium is not on PATH (nor COHORT_CHROMIUM)")
                : driver.isEmpty() ? Optional.of("chromedriver is not on PATH (nor COHORT_CHROMEDRIVER)") : Optional.empty());
        return new Browser(chromium.orElseThrow(), driver.orElseThrow());
    }

    /** {@code env}'s {@code variable} when set (an error when it is not executable), else {@code command} on its PATH. */
    static Optional<Path> locate(Map<String, String> env, String variable, String command) {
        String explicit = env.get(variable);
        if (explicit != null && !explicit.isBlank()) {
            Path p = Path.of(explicit);
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new IllegalStateException(variable + "=" + explicit + " is not an executable file; point it at "
                        + command + " or unset it to use the " + command + " on PATH");
            }
            return Optional.of(p);
        }
        return OptionalProgram.find(command, env.get("PATH"));
    }

    /** Starts chromedriver and a headless Chromium with {@code profile} as its fresh user-data-dir. */
    static WebDriver start(Browser browser, Path profile, Path driverLog) throws IOException, InterruptedException {
        int port = Ports.free();
        Process p = new ProcessBuilder(browser.chromedriver().toString(), "--port=" + port)
                .redirectErrorStream(true).redirectOutput(driverLog.toFile()).start();
        String base = "http://127.0.0.1:" + port;
        HttpClient probe = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                HttpResponse<String> r = probe.send(HttpRequest.newBuilder(URI.create(base + "/status")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (Json.MAPPER.readTree(r.body()).path("value").path("ready").asBoolean()) {
                    break;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IllegalStateException("chromedriver did not start: " + Files.readString(driverLog));
            }
            Thread.sleep(100);
        }
        ObjectNode caps = Json.MAPPER.createObjectNode();
        ObjectNode options = caps.putObject("capabilities").putObject("alwaysMatch").put("browserName", "chrome")
                .putObject("goog:chromeOptions");
        options.put("binary", browser.chromium().toString());
        var args = options.putArray("args");
        for (String a : List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1440,1000", "--user-data-dir=" + profile)) {
            args.add(a);
        }
        WebDriver w = new WebDriver(p, base, null);
        try {
            JsonNode created = w.call("POST", base + "/session", caps);
            return new WebDriver(p, base, created.path("sessionId").asText());
        } catch (RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
    }

    void open(String url) {
        cmd("POST", "/url", Map.of("url", url));
    }

    /** The element matching {@code css}; fails when there is none. */
    String find(String css) {
        return cmd("POST", "/element", Map.of("using", "css selector", "value", css)).path(ELEMENT).asText();
    }

    List<String> findAll(String css) {
        List<String> ids = new ArrayList<>();
        cmd("POST", "/elements", Map.of("using", "css selector", "value", css)).forEach(e -> ids.add(e.path(ELEMENT).asText()));
        return ids;
    }

    void click(String element) {
        cmd("POST", "/element/" + element + "/click", Map.of());
    }

    void type(String element, String text) {
        cmd("POST", "/element/" + element + "/value", Map.of("text", text));
    }

    void clear(String element) {
        cmd("POST", "/element/" + element + "/clear", Map.of());
    }

    /** The rendered text ({@code innerText}) of the first element matching {@code css}, "" when there is none. */
    String text(String css) {
        // read in the page in one step: the dashboard re-renders its panels, so an element id could go stale in between
        return script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css).asText();
    }

    /** Runs {@code script} (a function body; {@code arguments} are {@code args}) in the page and returns its value. */
    JsonNode script(String script, Object... args) {
        return cmd("POST", "/execute/sync", Map.of("script", script, "args", List.of(args)));
    }

    /** The element that has the keyboard focus, as its id attribute. */
    String focusedId() {
        return script("return document.activeElement ? document.activeElement.id : null").asText();
    }

    void pressTab() {
        cmd("POST", "/actions", Map.of("actions", List.of(Map.of("type", "key", "id", "kbd", "actions",
                List.of(Map.of("type", "keyDown", "value", "\uE004"), Map.of("type", "keyUp", "value", "\uE004"))))));
    }

    void pressEnter(String element) {
        type(element, "\uE007");
    }

    void screenshot(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(cmd("GET", "/screenshot", null).asText()));
    }

    private JsonNode cmd(String method, String path, Object body) {
        return call(method, base + "/session/" + session + path, body);
    }

    private JsonNode call(String method, String url, Object body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json");
            b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(body)));
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode value = Json.MAPPER.readTree(r.body()).path("value");
            if (r.statusCode() != 200) {
                throw new IllegalStateException("webdriver " + method + " " + url + " -> " + r.statusCode() + ": "
                        + value.path("error").asText() + " " + value.path("message").asText());
            }
            return value;
        } catch (IOException e) {
            throw new IllegalStateException("webdriver " + method + " " + url + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (session != null) {
                call("DELETE", base + "/session/" + session, null);
            }
        } catch (RuntimeException ignored) {
            // the driver is stopped below in any case
        } finally {
            driver.destroy();
            try {
                if (!driver.waitFor(Duration.ofSeconds(20).toSeconds(), TimeUnit.SECONDS)) {
                    driver.descendants().forEach(ProcessHandle::destroyForcibly);
                    driver.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

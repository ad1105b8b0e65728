package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code cohort demo} as its own process: every scripted turn completes, the board is printed, exit 0. With
 * {@code --keep} the team stays up behind a one-time dashboard login link until a SIGTERM stops everything.
 */
class DemoCommandIT {

    @Test
    void theDemoRunsEndToEnd() throws Exception {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dcohort.home=" + repo, "dev.cohort.cli.Main", "demo")
                .redirectErrorStream(true);
        pb.environment().remove("COHORT_API_TOKEN");
        Process demo = pb.start();
        List<String> out = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.add(line);
                    System.out.println("[cohort demo] " + line);
                }
            } catch (Exception ignored) {
                // ended
            }
        });
        try {
            assertThat(demo.waitFor(300, TimeUnit.SECONDS)).as("demo ends").isTrue();
            reader.join(5_000);
            assertThat(demo.exitValue()).as(String.join("\n", out)).isZero();
            assertThat(out.stream().filter(l -> l.startsWith("── turn completed")).count()).isEqualTo(DemoCommand.PROMPTS.size());
            assertThat(out).contains("Approve bash: rm -r build? [y/N] y   (the demo answers)", "Removed build/.")
                    .anyMatch(l -> l.startsWith("✓ task_1 Design the users table schema completed by lead; unblocked: task_2"))
                    .anyMatch(l -> l.matches("task_1\\s+completed\\s+lead\\s+Design the users table schema"))
                    .noneMatch(l -> l.startsWith("↻") || l.startsWith("error:"));
        } finally {
            if (demo.isAlive()) {
                demo.destroy();
                demo.waitFor(90, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void demoKeepLeavesTheTeamUpBehindAOneTimeLoginLinkUntilSigterm() throws Exception {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dcohort.home=" + repo, "dev.cohort.cli.Main", "demo", "--keep")
                .redirectErrorStream(true);
        pb.environment().remove("COHORT_API_TOKEN");
        Process demo = pb.start();
        List<String> out = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.add(line);
                    System.out.println("[cohort demo --keep] " + line);
                }
            } catch (Exception ignored) {
                // ended
            }
        });
        Path dir = null;
        try {
            await("the dashboard link").atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !demo.isAlive() || out.stream().anyMatch(l -> l.startsWith("dashboard: ")));
            assertThat(demo.isAlive()).as(String.join("\n", out)).isTrue();
            dir = Path.of(out.stream().filter(l -> l.contains("workspace /")).findFirst().orElseThrow()
                    .replaceFirst(".*workspace ", "").strip()).getParent();
            assertThat(out.stream().filter(l -> l.startsWith("── turn completed")).count()).isEqualTo(DemoCommand.PROMPTS.size());
            String link = out.stream().filter(l -> l.startsWith("dashboard: ")).findFirst().orElseThrow()
                    .substring("dashboard: ".length()).strip();
            assertThat(link).matches("http://127\\.0\\.0\\.1:\\d+/#code=[A-Za-z0-9_-]{43}");
            assertThat(out).anyMatch(l -> l.startsWith("the link logs in once, until ") && l.contains(" ./cohort dashboard"));
            String lead = link.substring(0, link.indexOf("/#"));
            String code = link.substring(link.indexOf("#code=") + "#code=".length());

            // the page is there; the API wants a login; the link's code is one, once
            HttpClient http = HttpClient.newHttpClient();
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .contains("<title>Cohort dashboard</title>");
            assertThat(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/teams/default/tasks")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
            HttpResponse<String> login = redeem(http, lead, code);
            assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
            String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
            assertThat(cookie).startsWith("cohort_session=v1.");
            HttpResponse<String> again = redeem(http, lead, code);
            assertThat(again.statusCode()).isEqualTo(401);
            assertThat(Json.MAPPER.readTree(again.body()).path("detail").asText())
                    .isEqualTo("this login link was already used or has expired — run `cohort dashboard` for a new one");

            // with the cookie: the demo's board and its events
            JsonNode tasks = Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/teams/default/tasks"))
                    .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(tasks).anyMatch(t -> t.path("id").asText().equals("task_1") && t.path("status").asText().equals("completed"));
            HttpResponse<Stream<String>> events = http.send(HttpRequest.newBuilder(URI.create(lead
                    + "/api/v1/teams/default/events?since=0")).header("Cookie", cookie).header("Accept", "text/event-stream")
                    .build(), HttpResponse.BodyHandlers.ofLines());
            assertThat(events.statusCode()).isEqualTo(200);
            try (Stream<String> lines = events.body()) {
                // the stream stays open: read until the demo's third answer, which is in the history
                assertThat(lines.anyMatch(l -> l.startsWith("data:") && l.contains("Removed build/."))).isTrue();
            }

            // SIGTERM (as a service manager or `kill` would): the demo stops up, which stops everything it started
            List<ProcessHandle> children = demo.descendants().toList();
            assertThat(children).hasSizeGreaterThanOrEqualTo(5); // cohort up and the four services
            List<Integer> ports = new ArrayList<>();
            Matcher m = Pattern.compile("(?:127\\.0\\.0\\.1|localhost):(\\d+)").matcher(Files.readString(dir.resolve("up.log")));
            while (m.find()) {
                ports.add(Integer.parseInt(m.group(1)));
            }
            assertThat(ports).as("kafka, postgresql, the services and the model").hasSizeGreaterThanOrEqualTo(6);
            new ProcessBuilder("kill", "-TERM", Long.toString(demo.pid())).start().waitFor();
            assertThat(demo.waitFor(120, TimeUnit.SECONDS)).as("the demo exits after SIGTERM").isTrue();
            await("every process it started has ended").atMost(Duration.ofSeconds(30))
                    .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            for (int p : ports) {
                await("port " + p + " is free").atMost(Duration.ofSeconds(30)).until(() -> !UpCommandIT.listening(p));
            }
        } finally {
            if (demo.isAlive()) {
                demo.descendants().forEach(ProcessHandle::destroyForcibly);
                demo.destroyForcibly();
            }
            if (dir != null) {
                try (Stream<Path> s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    private static HttpResponse<String> redeem(HttpClient http, String lead, String code) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(lead + "/api/v1/session")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"code\":\"" + code + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}

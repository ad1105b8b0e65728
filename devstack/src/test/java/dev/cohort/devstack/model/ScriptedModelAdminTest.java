package dev.cohort.devstack.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Admin endpoints, the HTTP client for other class loaders, scenario sources and connection behaviour. */
class ScriptedModelAdminTest extends ScriptedModelTestSupport {

    @Test
    void the_request_log_is_readable_over_http_with_the_answering_rule() {
        client.loadResource("model/tool-loop.json");

        chat(chatRequest("default/lead", "system", "You lead.", "user", "what is here?"));
        chat(chatRequest("default/lead", "user", "what is here?", "assistant", "", "tool", "a.txt b.txt"));
        chat(chatRequest("default/nobody", "user", "hi"));

        List<JsonNode> log = client.waitForRequests(3, Duration.ofSeconds(30));
        assertThat(log).extracting(r -> r.path("seq").asInt()).containsExactly(1, 2, 3);
        assertThat(log).extracting(r -> r.path("rule").isNull() ? null : r.path("rule").asText())
                .containsExactly("lead-runs-ls", "lead-summarises", null);
        assertThat(log).extracting(r -> r.path("status").asInt()).containsExactly(200, 200, 500);
        assertThat(log).extracting(r -> r.path("agent").asText())
                .containsExactly("default/lead", "default/lead", "default/nobody");
        assertThat(log).extracting(r -> r.path("call").asInt()).containsExactly(1, 2, 1);
        assertThat(log.get(0).path("model").asText()).isEqualTo("gpt-4o-mini");
        assertThat(log.get(0).path("body"))
                .isEqualTo(chatRequest("default/lead", "system", "You lead.", "user", "what is here?"));
        assertThat(Instant.parse(log.get(0).path("time").asText())).isBeforeOrEqualTo(Instant.now());
    }

    @Test
    void the_tool_loop_scenario_answers_a_tool_call_then_a_summary() {
        server.loadResource("model/tool-loop.json");

        JsonNode first = choice(chat(chatRequest("default/lead", "user", "what is here?")));
        JsonNode second = choice(chat(chatRequest("default/lead", "user", "what is here?", "assistant", "",
                "tool", "a.txt b.txt")));

        assertThat(first.at("/message/tool_calls/0")).isEqualTo(json("""
                {"id":"call_ls","type":"function","function":{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}}"""));
        assertThat(second.at("/message/content").asText()).isEqualTo("The directory holds: a.txt b.txt");
    }

    @Test
    void models_lists_scripted_and_every_model_named_in_the_scenario() {
        server.loadResource("model/tool-loop.json");

        HttpResponse<String> response = get("/v1/models");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response.body())).isEqualTo(json("""
                {"object":"list","data":[
                  {"id":"scripted","object":"model","created":0,"owned_by":"cohort-devstack"},
                  {"id":"gpt-overloaded","object":"model","created":0,"owned_by":"cohort-devstack"}]}
                """));
    }

    @Test
    void reset_clears_the_rules_the_log_and_the_call_counters() {
        client.load("{\"rules\":[{\"match\":{\"call\":1},\"reply\":{\"text\":\"first\"}}]}");
        chat(chatRequest("a", "user", "hi"));
        assertThat(client.requests()).hasSize(1);

        client.reset();

        assertThat(client.requests()).isEmpty();
        assertThat(chat(chatRequest("a", "user", "hi")).statusCode()).as("no rules any more").isEqualTo(500);
        client.load("{\"rules\":[{\"match\":{\"call\":1},\"reply\":{\"text\":\"first\"}}]}");
        client.reset();
        client.load("{\"rules\":[{\"match\":{\"call\":1},\"reply\":{\"text\":\"first\"}}]}");
        assertThat(choice(chat(chatRequest("a", "user", "hi"))).at("/message/content").asText())
                .as("the call counter restarted").isEqualTo("first");
    }

    @Test
    void loading_replaces_the_rules_and_append_adds_after_them() {
        client.load("{\"rules\":[{\"match\":{\"lastMessage\":\"one\"},\"reply\":{\"text\":\"1\"}}]}");
        client.load("{\"rules\":[{\"match\":{\"lastMessage\":\"two\"},\"reply\":{\"text\":\"2\"}}]}");
        client.append("{\"rules\":[{\"reply\":{\"text\":\"fallback\"}}]}");

        assertThat(choice(chat(chatRequest("a", "user", "two"))).at("/message/content").asText()).isEqualTo("2");
        assertThat(choice(chat(chatRequest("a", "user", "one"))).at("/message/content").asText())
                .isEqualTo("fallback");
    }

    @Test
    void a_scenario_with_an_unknown_key_or_a_bad_regex_is_refused_with_a_reason() {
        HttpResponse<String> typo = post("/__admin/scenario", "{\"rules\":[{\"match\":{\"agnet\":\"a\"},\"reply\":{}}]}");
        HttpResponse<String> badRegex = post("/__admin/scenario",
                "{\"rules\":[{\"name\":\"r\",\"match\":{\"lastMessage\":\"(\"},\"reply\":{\"text\":\"x\"}}]}");

        assertThat(typo.statusCode()).isEqualTo(400);
        assertThat(json(typo.body()).at("/error/message").asText()).contains("agnet");
        assertThat(badRegex.statusCode()).isEqualTo(400);
        assertThat(json(badRegex.body()).at("/error/message").asText()).contains("rule #1 'r'").contains("regex");
        assertThatThrownBy(() -> client.load("{\"rules\":[{\"match\":{}}]}"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs a reply");
    }

    @Test
    void a_built_scenario_survives_the_trip_through_json() {
        Scenario built = Scenario.builder()
                .rule(Rule.when().name("tool").agent("a").hasTools(true).times(2)
                        .then(Reply.toolCalls(Reply.ToolCall.of("bash", "{\"command\":\"pwd\"}").withId("call_x"))
                                .withRawArguments("{oops").withUsage(3, 4).withDelayMs(1)))
                .rule(Rule.when().thenErrorPreset("rate_limit"))
                .build();

        Scenario parsed = Scenario.parse(built.toJson());

        assertThat(parsed).isEqualTo(built);
        client.load(built);
        assertThat(json(get("/v1/models").body()).path("data")).hasSize(1);
    }

    @Test
    void the_command_line_entry_starts_a_server_with_a_scenario_file(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("scenario.json");
        Files.writeString(file, "{\"rules\":[{\"name\":\"cli\",\"reply\":{\"text\":\"from the cli\"}}]}");

        try (ScriptedModelServer cli = ScriptedModelServer.startFromArgs(
                new String[] {"--port", "0", "--scenario", file.toString()})) {
            HttpResponse<String> response = send(HttpRequest
                    .newBuilder(URI.create(cli.baseUrl() + "/chat/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString(chatRequest("a", "user", "hi").toString()))
                    .build());
            assertThat(choice(response).at("/message/content").asText()).isEqualTo("from the cli");
            assertThat(cli.baseUrl()).isEqualTo("http://127.0.0.1:" + cli.port() + "/v1");
        }
        try (ScriptedModelServer fromClasspath = ScriptedModelServer.startFromArgs(
                new String[] {"--scenario", "classpath:model/tool-loop.json"})) {
            assertThat(fromClasspath.port()).isPositive();
        }
    }

    @Test
    void a_connection_is_kept_alive_and_each_response_arrives_in_one_piece() throws Exception {
        server.load(Scenario.builder().rule(Rule.when().thenText("pong")).build());
        byte[] body = chatRequest("a", "user", "ping").toString().getBytes(StandardCharsets.UTF_8);
        byte[] request = ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n" + new String(body, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);

        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (int i = 1; i <= 3; i++) {
                out.write(request);
                out.flush();
                // One write on the server side lands as one loopback segment, so one read returns it all;
                // a separate header write (pitfall P17) would show up here as a read that stops after the headers.
                byte[] buffer = new byte[64 * 1024];
                int n = in.read(buffer);
                String response = new String(buffer, 0, n, StandardCharsets.UTF_8);
                assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("Connection: keep-alive");
                int length = Integer.parseInt(response.replaceAll("(?s).*Content-Length: (\\d+)\r\n.*", "$1"));
                String responseBody = response.substring(response.indexOf("\r\n\r\n") + 4);
                assertThat(responseBody.getBytes(StandardCharsets.UTF_8)).hasSize(length);
                assertThat(json(responseBody).at("/choices/0/message/content").asText()).isEqualTo("pong");
            }
        }
        assertThat(server.requests()).hasSize(3);
    }

    @Test
    void a_connection_close_request_is_answered_then_closed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(all); // returns only because the server closes
            assertThat(all.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 200 OK").contains("Connection: close");
        }
    }

    @Test
    void the_client_accepts_the_base_url_as_well_as_the_admin_url() {
        ScriptedModelClient viaBaseUrl = new ScriptedModelClient(server.baseUrl() + "/");
        viaBaseUrl.load("{\"rules\":[{\"reply\":{\"text\":\"x\"}}]}");
        chat(chatRequest("a", "user", "hi"));

        assertThat(viaBaseUrl.requests()).hasSize(1);
        assertThatThrownBy(() -> viaBaseUrl.waitForRequests(2, Duration.ofMillis(100)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("expected at least 2");
    }
}

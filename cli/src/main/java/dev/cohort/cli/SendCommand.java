package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cohort send "<prompt>"}: sends a prompt, waits for the turn to end, prints the answer; non-zero on error. */
@Command(name = "send", mixinStandardHelpOptions = true, description = "Send a prompt to a team's lead and print its answer.")
public final class SendCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PROMPT", description = "The prompt text.")
    String prompt;

    @Option(names = "--team", description = "Team id (default: default).")
    String team = "default";

    @Option(names = "--url", description = "lead-service URL (default: the running `cohort up`, env COHORT_URL, or http://127.0.0.1:8080).")
    String url;

    @Option(names = "--token", description = "API token (default: env COHORT_API_TOKEN or the running `cohort up`).")
    String token;

    @Override
    public Integer call() throws Exception {
        ApiClient api = new ApiClient(url, token);
        // remember where the stream is now, so only this turn's events are read
        AtomicReference<Long> last = new AtomicReference<>(0L);
        JsonNode sent;
        try {
            sent = api.post("/api/v1/teams/" + team + "/prompts", Map.of("text", prompt, "source", "cli"));
        } catch (java.net.ConnectException e) {
            System.err.println("cohort send: cannot reach " + api.baseUrl() + " - is `./cohort up` running?");
            return 2;
        } catch (java.io.IOException e) {
            System.err.println("cohort send: " + e.getMessage());
            return 2;
        }
        String id = sent.get("id").asText();
        AtomicInteger rc = new AtomicInteger(1);
        StringBuilder answer = new StringBuilder();
        api.stream(team, last.get(), e -> {
            if (!id.equals(e.path("data").path("promptId").asText())) {
                return false;
            }
            switch (e.path("type").asText()) {
                case "assistant_message" -> answer.append(e.path("data").path("text").asText());
                case "error" -> System.err.println("error: " + e.path("data").path("message").asText());
                case "turn_completed" -> {
                    rc.set("completed".equals(e.path("data").path("status").asText()) ? 0 : 1);
                    return true;
                }
                default -> {
                    // other events are for `cohort chat`
                }
            }
            return false;
        });
        if (!answer.isEmpty()) {
            System.out.println(answer);
        }
        return rc.get();
    }
}

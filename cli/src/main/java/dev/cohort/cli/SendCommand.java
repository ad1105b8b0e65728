package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cohort send "<prompt>"}: sends a prompt, waits for the turn to end, prints the answer; non-zero on error. */
@Command(name = "send", mixinStandardHelpOptions = true, description = "Send a prompt to a team's lead and print its answer.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the turn completed", "1:the turn failed or was interrupted",
            "2:the service could not be reached or refused the prompt"})
public final class SendCommand extends ApiCommand {

    @Parameters(index = "0", paramLabel = "PROMPT", description = "The prompt text.")
    String prompt;

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Override
    int run() throws IOException, InterruptedException {
        ApiClient api = lead();
        JsonNode sent = api.post("/api/v1/teams/" + ApiClient.seg(team) + "/prompts", Map.of("text", prompt, "source", "cli"));
        String id = sent.get("id").asText();
        AtomicInteger rc = new AtomicInteger(1);
        AtomicLong last = new AtomicLong(0);
        StringBuilder answer = new StringBuilder();
        boolean done = false;
        // only this prompt's events count; a stream the server ends is resumed after the last seen seq
        for (int attempt = 0; !done && attempt < 5; attempt++) {
            if (attempt > 0) {
                Thread.sleep(500L * attempt);
            }
            done = api.stream(team, last.get(), e -> {
                last.set(Math.max(last.get(), e.path("seq").asLong()));
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
        }
        if (!answer.isEmpty()) {
            System.out.println(answer);
        }
        if (!done) {
            System.err.println(name() + ": the event stream ended before the turn did");
        }
        return rc.get();
    }
}

package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cohort send "<prompt>"}: posts a prompt, follows the team's events from the prompt's acceptance (the POST
 * answer's {@code afterSeq}: no replay of the team's history) until the prompt's turn ends, prints that turn's final
 * answer; exit 1 when the turn did not complete.
 */
@Command(name = "send", mixinStandardHelpOptions = true, description = "Send a prompt to a team's lead and print its answer.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the turn completed", "1:the turn failed or was interrupted",
            "2:the service could not be reached or refused the prompt"})
public final class SendCommand extends ApiCommand {

    /** Stream reconnections before giving up: a lead restart or a proxy's idle cut, not a dead service, is expected. */
    private static final int STREAM_ATTEMPTS = 5;

    @Parameters(index = "0", paramLabel = "PROMPT", description = "The prompt text.")
    String prompt;

    @Option(names = "--team", description = "Team id (default: ${DEFAULT-VALUE}).")
    String team = "default";

    @Override
    int run() throws IOException, InterruptedException {
        ApiClient api = lead();
        JsonNode sent = api.post("/api/v1/teams/" + ApiClient.seg(team) + "/prompts", Map.of("text", prompt, "source", "cli"));
        PromptFollower turn = new PromptFollower(sent.get("id").asText());
        // every event of the prompt's turn has a seq above afterSeq (a server without the field: the whole history)
        AtomicLong last = new AtomicLong(sent.path("afterSeq").asLong(0));
        // a stream the server ends (or that breaks) is resumed after the last seen seq
        for (int attempt = 0; !turn.ended() && attempt < STREAM_ATTEMPTS; attempt++) {
            if (attempt > 0) {
                Thread.sleep(500L * attempt);
            }
            try {
                api.stream(team, last.get(), e -> {
                    last.set(Math.max(last.get(), e.path("seq").asLong()));
                    return turn.accept(e);
                });
            } catch (ApiClient.Failure | ApiClient.Unreachable e) {
                throw e;
            } catch (IOException e) {
                if (attempt == STREAM_ATTEMPTS - 1) {
                    throw e;
                }
            }
        }
        turn.errors().forEach(m -> System.err.println("error: " + m));
        if (!turn.ended()) {
            System.err.println(name() + ": the event stream ended before the turn did");
            return 1;
        }
        if (!turn.completed()) {
            turn.failure().ifPresent(f -> System.err.println(name() + ": " + f));
            return 1;
        }
        turn.answer().ifPresent(System.out::println);
        return 0;
    }
}

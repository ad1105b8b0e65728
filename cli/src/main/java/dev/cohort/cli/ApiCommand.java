package dev.cohort.cli;

import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command that talks to the services. Connection options, and one way of failing: a service that does not answer
 * ("is `./cohort up` running?") or refuses (its problem {@code detail}) prints one line on stderr and exits
 * {@value #REQUEST_FAILED}.
 */
abstract class ApiCommand implements Callable<Integer> {

    /** Exit code when a request could not be made or was refused. */
    static final int REQUEST_FAILED = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--url", paramLabel = "URL",
            description = "lead-service URL (default: env COHORT_URL, the running `cohort up`, or http://127.0.0.1:8080).")
    String url;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "API token (default: env COHORT_API_TOKEN or the running `cohort up`).")
    String token;

    ApiClient lead() {
        return ApiClient.lead(url, token);
    }

    @Override
    public final Integer call() throws Exception {
        try {
            return run();
        } catch (IOException e) {
            System.err.println(name() + ": " + describe(e));
            return REQUEST_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    /** The command's work; its return value is the exit code. */
    abstract int run() throws IOException, InterruptedException;

    /** {@code cohort team create}, for messages. */
    String name() {
        return spec == null ? "cohort" : spec.qualifiedName();
    }

    /** One line a person can act on. */
    static String describe(IOException e) {
        if (e instanceof ApiClient.Failure f) {
            return f.detail() + " (HTTP " + f.status() + ")";
        }
        return TerminalText.line(e.getMessage() == null ? e.toString() : e.getMessage());
    }
}

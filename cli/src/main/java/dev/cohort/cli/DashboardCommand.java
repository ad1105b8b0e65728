package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort dashboard}: prints a fresh one-time login link to the web dashboard, {@code <lead>/#code=<code>}
 * ({@code POST /api/v1/login-codes} with the API token). The link on stdout (so {@code xdg-open "$(cohort
 * dashboard)"} works), how long it lasts on stderr. The code is in the URL's fragment, which browsers never send, so
 * it lands in no server log; the page takes it out of the address bar before it redeems it.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = {"Print a one-time login link to the web dashboard (it logs one browser in, once).",
            "The link is valid for 15 minutes by default (cohort.dashboard.login-code-ttl)."})
public final class DashboardCommand extends ApiCommand {

    private static final DateTimeFormatter UNTIL = DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    @Option(names = "--team", description = "Open the dashboard on this team (default: the page picks `default`).")
    String team;

    @Override
    int run() throws IOException, InterruptedException {
        ApiClient api = lead();
        if (team != null) {
            api.get("/api/v1/teams/" + ApiClient.seg(team)); // an unknown team: its 404 detail, exit 2
        }
        Link link = create(api, team);
        System.out.println(link.url());
        System.err.println("cohort dashboard: " + link.note());
        return 0;
    }

    /** A login link and when it stops working. */
    record Link(String url, String expiresAt) {
        /** "logs in once, until 12:34:56 UTC". */
        String note() {
            return "the link logs in once, until " + until(expiresAt);
        }
    }

    /** Asks lead-service for a one-time code and builds the link to its page (on {@code team} if given). */
    static Link create(ApiClient api, String team) throws IOException, InterruptedException {
        JsonNode answer = api.post("/api/v1/login-codes", Map.of());
        return new Link(url(api.baseUrl(), team, answer.path("code").asText()), answer.path("expiresAt").asText());
    }

    /** {@code <base>/#team=<team>&code=<code>}, without the team part when {@code team} is null. */
    static String url(String base, String team, String code) {
        return base + "/#" + (team == null ? "" : "team=" + ApiClient.seg(team) + "&") + "code=" + code;
    }

    /** An ISO instant as {@code HH:mm:ss UTC}; the text as it is when it is not one. */
    static String until(String isoInstant) {
        try {
            return UNTIL.format(Instant.parse(isoInstant));
        } catch (DateTimeParseException e) {
            return isoInstant;
        }
    }
}

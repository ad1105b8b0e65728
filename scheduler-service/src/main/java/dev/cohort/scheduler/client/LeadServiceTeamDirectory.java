package dev.cohort.scheduler.client;

import dev.cohort.scheduler.jobs.TeamDirectory;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Asks lead-service ({@code GET {base}/api/v1/teams/{team}}) whether a team exists: 200 yes, 404 no, anything else
 * is a {@link TeamLookupException}. Positive answers are cached for {@code cacheTtl}; negative ones are not, so a
 * team created a moment later is accepted at once.
 */
public class LeadServiceTeamDirectory implements TeamDirectory {

    private final URI base;
    private final Optional<String> token;
    private final Duration timeout;
    private final Duration cacheTtl;
    private final InstantSource clock;
    private final HttpClient http;
    private final Map<String, Instant> known = new ConcurrentHashMap<>();

    public LeadServiceTeamDirectory(URI base, Optional<String> token, Duration timeout, Duration cacheTtl, InstantSource clock) {
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        this.token = token.filter(t -> !t.isBlank());
        this.timeout = timeout;
        this.cacheTtl = cacheTtl;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public boolean exists(String team) {
        Instant cachedUntil = known.get(team);
        Instant now = clock.instant();
        if (cachedUntil != null && now.isBefore(cachedUntil)) {
            return true;
        }
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + "/api/v1/teams/"
                + URLEncoder.encode(team, StandardCharsets.UTF_8))).timeout(timeout).header("Accept", "application/json").GET();
        token.ifPresent(t -> req.header("Authorization", "Bearer " + t));
        HttpResponse<String> resp;
        try {
            resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new TeamLookupException("lead-service at " + base + " is unreachable (" + e + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TeamLookupException("interrupted while asking lead-service", e);
        }
        if (resp.statusCode() == 200) {
            known.put(team, now.plus(cacheTtl));
            return true;
        }
        if (resp.statusCode() == 404) {
            known.remove(team);
            return false;
        }
        throw new TeamLookupException("lead-service answered HTTP " + resp.statusCode() + " for team '" + team + "'", null);
    }
}

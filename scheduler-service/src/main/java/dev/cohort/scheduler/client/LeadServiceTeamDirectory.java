package dev.cohort.scheduler.client;

import dev.cohort.core.http.ServiceClient;
import dev.cohort.scheduler.jobs.TeamDirectory;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Asks lead-service ({@code GET {base}/api/v1/teams/{team}}, a {@link ServiceClient} under the services' retry policy)
 * whether a team exists: 200 yes, 404 no, anything else (or no answer) is a {@link TeamLookupException}. Positive
 * answers are cached for {@code cacheTtl}; negative ones are not, so a team created a moment later is accepted at once.
 */
public class LeadServiceTeamDirectory implements TeamDirectory {

    /** The retries' budget: a lead replica restarting is ridden out, a job create is not held for long. */
    static final ServiceClient.Retry RETRY = ServiceClient.Retry.within(Duration.ofSeconds(3));

    private final URI base;
    private final Duration cacheTtl;
    private final InstantSource clock;
    private final ServiceClient http;
    private final Map<String, Instant> known = new ConcurrentHashMap<>();

    public LeadServiceTeamDirectory(URI base, Optional<String> token, Duration timeout, Duration cacheTtl, InstantSource clock) {
        this.base = base;
        this.cacheTtl = cacheTtl;
        this.clock = clock;
        this.http = new ServiceClient("lead-service", List.of(base.toString()),
                token.filter(t -> !t.isBlank()).orElse(null), timeout, RETRY);
    }

    @Override
    public boolean exists(String team) {
        Instant cachedUntil = known.get(team);
        Instant now = clock.instant();
        if (cachedUntil != null && now.isBefore(cachedUntil)) {
            return true;
        }
        ServiceClient.Answer a;
        try {
            a = http.send(ServiceClient.Request.get("api/v1/teams/" + ServiceClient.segment(team)));
        } catch (ServiceClient.NoAnswer e) {
            throw new TeamLookupException("lead-service at " + base + " is unreachable (" + e.getMessage() + ")", e);
        }
        if (a.status() == 200) {
            known.put(team, now.plus(cacheTtl));
            return true;
        }
        if (a.status() == 404) {
            known.remove(team);
            return false;
        }
        throw new TeamLookupException("lead-service answered HTTP " + a.status() + " for team '" + team + "'", null);
    }
}

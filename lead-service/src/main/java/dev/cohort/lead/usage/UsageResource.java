package dev.cohort.lead.usage;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import java.time.format.DateTimeParseException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

/**
 * {@code GET /api/v1/teams/{team}/usage?by=agent|turn|day[&since=YYYY-MM-DD][&agent=name]}: the team's model calls,
 * tokens and cost from the usage ledger, grouped, with the total of the rows.
 */
@Path("/api/v1/teams/{team}/usage")
public class UsageResource {

    @Inject
    TeamRepository teams;

    @Inject
    UsageRepository usage;

    /** The answer. */
    public record Report(String team, String by, List<Row> rows, Totals total) {
    }

    /**
     * One group: {@code agent} for by=agent|turn, {@code turnId} for by=turn, {@code day} for by=day. {@code costUsd}
     * counts the calls with a known price; {@code priceKnown} is false when any call's model had none
     * ({@code unpricedCalls} of them, of {@code unpricedModels}): the cost is then unknown, not what {@code costUsd}
     * says.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Row(String key, String agent, String turnId, String day, long modelCalls, long promptTokens,
            long completionTokens, long cachedTokens, double costUsd, long cacheWriteTokens, boolean priceKnown,
            long unpricedCalls, List<String> unpricedModels) {
    }

    /** The counters of all rows (the same fields as a {@link Row}'s). */
    public record Totals(long modelCalls, long promptTokens, long completionTokens, long cachedTokens,
            double costUsd, long cacheWriteTokens, boolean priceKnown, long unpricedCalls,
            List<String> unpricedModels) {
        static Totals of(UsageTotals t) {
            return new Totals(t.modelCalls(), t.promptTokens(), t.completionTokens(), t.cachedTokens(), t.costUsd(),
                    t.cacheWriteTokens(), t.priceKnown(), t.unpricedCalls(), t.unpricedModels());
        }
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Report get(@PathParam("team") String team, @QueryParam("by") String byParam,
            @QueryParam("since") String sinceParam, @QueryParam("agent") String agent) {
        UsageRepository.By by = byParam == null || byParam.isBlank() ? UsageRepository.By.AGENT
                : UsageRepository.By.of(byParam).orElseThrow(() -> ApiException.badRequest(
                        "unknown by \"" + byParam + "\": use agent, turn or day"));
        LocalDate since = since(sinceParam);
        if (agent != null && agent.isBlank()) {
            throw ApiException.badRequest("agent must name an agent (or be left out for all agents)");
        }
        if (!teams.exists(team)) {
            throw ApiException.notFound("unknown team \"" + team + "\"");
        }
        List<UsageRepository.Group> groups = usage.report(team, by, since, agent);
        UsageTotals total = UsageTotals.ZERO;
        for (UsageRepository.Group g : groups) {
            total = total.plus(g.totals());
        }
        List<Row> rows = groups.stream().map(g -> {
            UsageTotals t = g.totals();
            return new Row(g.key(), g.agent(), g.turnId(), g.day() == null ? null : g.day().toString(),
                    t.modelCalls(), t.promptTokens(), t.completionTokens(), t.cachedTokens(), t.costUsd(),
                    t.cacheWriteTokens(), t.priceKnown(), t.unpricedCalls(), t.unpricedModels());
        }).toList();
        return new Report(team, by.wire(), rows, Totals.of(total));
    }

    /** An ISO date ({@code 2026-12-02}) or instant ({@code 2026-12-02T08:00:00Z}, its UTC day); null = no bound. */
    static LocalDate since(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        try {
            return LocalDate.parse(s.trim());
        } catch (DateTimeParseException e) {
            try {
                return LocalDate.ofInstant(Instant.parse(s.trim()), ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw ApiException.badRequest("since \"" + s + "\" is not an ISO date (e.g. 2026-12-02) or instant");
            }
        }
    }
}

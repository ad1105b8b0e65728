package dev.cohort.lead.budgets;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Budgets;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.PUT;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A team's budgets: {@code GET /api/v1/teams/{team}/budgets} → the budgets in force with the configured
 * defaults and the team's overrides, and the limits on the cron jobs its agents create ({@code cronJobs}); {@code PUT} with any subset of {@code tokensPerTurn, tokensPerAgent,
 * tokensPerTeam, costPerTurnUsd, costPerAgentUsd, costPerTeamUsd, tokensPerTeamPerDay, costPerTeamPerDayUsd} (≥ 0,
 * 0 = unlimited, {@code null} = back to the default; the two {@code …PerDay…} count the team's usage since 00:00 UTC) sets the team's overrides, which the lead and the teammates honour from their next step. An unknown
 * field, a negative, fractional-token or non-numeric value is a 400 problem naming it; an unknown team a 404.
 */
@Path("/api/v1/teams/{team}/budgets")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BudgetsResource {

    /** The budget fields, in order; the {@code tokens…} ones count tokens, the {@code cost…} ones USD. */
    public static final List<String> FIELDS = List.of("tokensPerTurn", "tokensPerAgent", "tokensPerTeam",
            "costPerTurnUsd", "costPerAgentUsd", "costPerTeamUsd", "tokensPerTeamPerDay", "costPerTeamPerDayUsd");

    /**
     * The view: every budget in force (top level), {@code defaults} ({@code cohort.engine.budgets.*}),
     * {@code overrides} (only the fields the team set), and {@code cronJobs}: what bounds the cron jobs the team's
     * agents create (read-only here; set in the lead's and the scheduler's configuration).
     */
    public record BudgetsView(String team, long tokensPerTurn, long tokensPerAgent, long tokensPerTeam,
            double costPerTurnUsd, double costPerAgentUsd, double costPerTeamUsd, long tokensPerTeamPerDay,
            double costPerTeamPerDayUsd, Budgets defaults, Budgets.Overrides overrides,
            TeamBudgets.CronJobLimits cronJobs) {
    }

    @Inject
    TeamRepository teams;

    @Inject
    BudgetRepository repository;

    @Inject
    TeamBudgets budgets;

    @GET
    public BudgetsView get(@PathParam("team") String team) {
        known(team);
        Budgets d = budgets.defaults();
        Budgets.Overrides o = repository.find(team);
        Budgets e = d.with(o);
        return new BudgetsView(team, e.tokensPerTurn(), e.tokensPerAgent(), e.tokensPerTeam(), e.costPerTurnUsd(),
                e.costPerAgentUsd(), e.costPerTeamUsd(), e.tokensPerTeamPerDay(), e.costPerTeamPerDayUsd(), d, o,
                budgets.cronJobLimits(team));
    }

    @PUT
    public BudgetsView put(@PathParam("team") String team, JsonNode body) {
        known(team);
        Budgets.Overrides change = parse(body);
        Budgets.Overrides now = repository.find(team);
        repository.save(team, merge(now, change, body));
        return get(team);
    }

    private void known(String team) {
        if (teams.cached(team).isEmpty()) {
            throw TeamsResource.notFound(team);
        }
    }

    /** The set values of {@code body}; its {@code null}s are handled by {@link #merge}. */
    static Budgets.Overrides parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("body required: an object with any of " + FIELDS + ", e.g. "
                    + "{\"tokensPerTeam\": 2000000, \"costPerTeamUsd\": 25}");
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext();) {
            String n = names.next();
            if (!FIELDS.contains(n)) {
                throw ApiException.badRequest("unknown budget \"" + n + "\"; known: " + FIELDS);
            }
        }
        Map<String, Long> tokens = new HashMap<>();
        Map<String, Double> cost = new HashMap<>();
        for (int i = 0; i < FIELDS.size(); i++) {
            String n = FIELDS.get(i);
            JsonNode v = body.get(n);
            if (v == null || v.isNull()) {
                continue;
            }
            if (!v.isNumber()) {
                throw ApiException.badRequest(n + " must be a number (0 = unlimited, null = the default), not " + v);
            }
            if (v.asDouble() < 0 || !Double.isFinite(v.asDouble())) {
                throw ApiException.badRequest(n + " must be 0 (unlimited) or positive, not " + v);
            }
            if (n.startsWith("tokens")) {
                if (!v.canConvertToExactIntegral() || !v.canConvertToLong()) {
                    throw ApiException.badRequest(n + " counts tokens: a whole number, not " + v);
                }
                tokens.put(n, v.longValue());
            } else {
                cost.put(n, v.doubleValue());
            }
        }
        return new Budgets.Overrides(tokens.get("tokensPerTurn"), tokens.get("tokensPerAgent"),
                tokens.get("tokensPerTeam"), cost.get("costPerTurnUsd"), cost.get("costPerAgentUsd"),
                cost.get("costPerTeamUsd"), tokens.get("tokensPerTeamPerDay"), cost.get("costPerTeamPerDayUsd"));
    }

    /** {@code now} with the values of {@code change}, and each field {@code body} sets to {@code null} removed. */
    static Budgets.Overrides merge(Budgets.Overrides now, Budgets.Overrides change, JsonNode body) {
        Budgets.Overrides m = now.merge(change);
        Map<String, Boolean> cleared = new HashMap<>();
        for (String n : FIELDS) {
            cleared.put(n, body.has(n) && body.get(n).isNull());
        }
        return new Budgets.Overrides(cleared.get("tokensPerTurn") ? null : m.tokensPerTurn(),
                cleared.get("tokensPerAgent") ? null : m.tokensPerAgent(),
                cleared.get("tokensPerTeam") ? null : m.tokensPerTeam(),
                cleared.get("costPerTurnUsd") ? null : m.costPerTurnUsd(),
                cleared.get("costPerAgentUsd") ? null : m.costPerAgentUsd(),
                cleared.get("costPerTeamUsd") ? null : m.costPerTeamUsd(),
                cleared.get("tokensPerTeamPerDay") ? null : m.tokensPerTeamPerDay(),
                cleared.get("costPerTeamPerDayUsd") ? null : m.costPerTeamPerDayUsd());
    }
}

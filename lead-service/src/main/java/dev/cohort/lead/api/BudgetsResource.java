package dev.cohort.lead.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.Budgets;
import dev.cohort.lead.persistence.BudgetRepository;
import dev.cohort.lead.persistence.TeamRepository;
import dev.cohort.lead.service.TeamBudgets;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A team's budgets (#18 item 3): {@code GET /api/v1/teams/{team}/budgets} → the budgets in force with the configured
 * defaults and the team's overrides; {@code PUT} with any subset of {@code tokensPerTurn, tokensPerAgent,
 * tokensPerTeam, costPerTurnUsd, costPerAgentUsd, costPerTeamUsd} (≥ 0, 0 = unlimited, {@code null} = back to the
 * default) sets the team's overrides, which the lead and the teammates honour from their next step. An unknown
 * field, a negative, fractional-token or non-numeric value is a 400 problem naming it; an unknown team a 404.
 */
@Path("/api/v1/teams/{team}/budgets")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class BudgetsResource {

    /** The budget fields, in order; the first three count tokens, the others USD. */
    public static final List<String> FIELDS = List.of("tokensPerTurn", "tokensPerAgent", "tokensPerTeam",
            "costPerTurnUsd", "costPerAgentUsd", "costPerTeamUsd");

    /**
     * The view: every budget in force (top level), {@code defaults} ({@code cohort.engine.budgets.*}) and
     * {@code overrides} (only the fields the team set).
     */
    public record BudgetsView(String team, long tokensPerTurn, long tokensPerAgent, long tokensPerTeam,
            double costPerTurnUsd, double costPerAgentUsd, double costPerTeamUsd, Budgets defaults,
            Budgets.Overrides overrides) {
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
                e.costPerAgentUsd(), e.costPerTeamUsd(), d, o);
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
        Long[] tokens = new Long[3];
        Double[] cost = new Double[3];
        for (int i = 0; i < 6; i++) {
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
            if (i < 3) {
                if (!v.canConvertToExactIntegral() || !v.canConvertToLong()) {
                    throw ApiException.badRequest(n + " counts tokens: a whole number, not " + v);
                }
                tokens[i] = v.longValue();
            } else {
                cost[i - 3] = v.doubleValue();
            }
        }
        return new Budgets.Overrides(tokens[0], tokens[1], tokens[2], cost[0], cost[1], cost[2]);
    }

    /** {@code now} with the values of {@code change}, and each field {@code body} sets to {@code null} removed. */
    static Budgets.Overrides merge(Budgets.Overrides now, Budgets.Overrides change, JsonNode body) {
        Budgets.Overrides m = now.merge(change);
        Map<String, Boolean> cleared = new java.util.HashMap<>();
        for (String n : FIELDS) {
            cleared.put(n, body.has(n) && body.get(n).isNull());
        }
        return new Budgets.Overrides(cleared.get("tokensPerTurn") ? null : m.tokensPerTurn(),
                cleared.get("tokensPerAgent") ? null : m.tokensPerAgent(),
                cleared.get("tokensPerTeam") ? null : m.tokensPerTeam(),
                cleared.get("costPerTurnUsd") ? null : m.costPerTurnUsd(),
                cleared.get("costPerAgentUsd") ? null : m.costPerAgentUsd(),
                cleared.get("costPerTeamUsd") ? null : m.costPerTeamUsd());
    }
}

package dev.cohort.core.engine;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * Token and cost budgets of one turn, of one agent over its life and of a whole team (every agent's saved usage);
 * 0 = unlimited. A budget is <i>reached</i> when the usage is at or above it; {@link #exceeded} is the pure decision,
 * the loop calls it between steps and ends the turn with the sentence it returns. Every default is 0: a limit in money
 * or tokens is the operator's choice, and a made-up one would stop real work; cost budgets count only what the
 * configured prices ({@link EngineSettings#prices()}) make of the tokens, so without a price they are never reached.
 *
 * @param tokensPerTurn   input + output tokens of one turn (its subagents included)
 * @param tokensPerAgent  input + output tokens over the agent's life
 * @param tokensPerTeam   input + output tokens of all the team's agents together
 * @param costPerTurnUsd  USD of one turn
 * @param costPerAgentUsd USD over the agent's life
 * @param costPerTeamUsd  USD of all the team's agents together
 */
public record Budgets(long tokensPerTurn, long tokensPerAgent, long tokensPerTeam, double costPerTurnUsd,
        double costPerAgentUsd, double costPerTeamUsd) {

    private static final Budgets UNLIMITED = new Budgets(0, 0, 0, 0, 0, 0);

    public Budgets {
        nonNegative("tokensPerTurn", tokensPerTurn);
        nonNegative("tokensPerAgent", tokensPerAgent);
        nonNegative("tokensPerTeam", tokensPerTeam);
        nonNegative("costPerTurnUsd", costPerTurnUsd);
        nonNegative("costPerAgentUsd", costPerAgentUsd);
        nonNegative("costPerTeamUsd", costPerTeamUsd);
    }

    /** No budget at all. */
    public static Budgets unlimited() {
        return UNLIMITED;
    }

    /** These budgets with the turn's and the agent's token budgets replaced. */
    public Budgets withTokens(long perTurn, long perAgent) {
        return new Budgets(perTurn, perAgent, tokensPerTeam, costPerTurnUsd, costPerAgentUsd, costPerTeamUsd);
    }

    /**
     * The sentence of the first budget reached, checked in this order: the turn's tokens, the turn's cost, the
     * agent's tokens, the agent's cost, the team's tokens, the team's cost. The sentence is shown to the user and
     * ends the turn; it names the usage and the budget.
     *
     * @param agentId   the agent, named in the agent's sentences
     * @param team      the team, named in the team's sentences ({@code null}: "the team")
     * @param turn      usage of the turn so far ({@code null} = {@link Usage#ZERO})
     * @param agent     usage of the agent over its life, this turn included ({@code null} = {@link Usage#ZERO})
     * @param teamUsage usage of the team's agents together; {@code null} when the host does not track it (the team's
     *                  budgets are then not checked)
     */
    public Optional<String> exceeded(String agentId, String team, Usage turn, Usage agent, Usage teamUsage) {
        Usage t = turn == null ? Usage.ZERO : turn;
        Usage a = agent == null ? Usage.ZERO : agent;
        if (reached(t.totalTokens(), tokensPerTurn)) {
            return Optional.of("Stopped: this turn used " + t.totalTokens() + " tokens, its budget is " + tokensPerTurn
                    + ".");
        }
        if (reached(t.costUsd(), costPerTurnUsd)) {
            return Optional.of("Stopped: this turn cost " + usd(t.costUsd()) + ", its budget is " + usd(costPerTurnUsd)
                    + ".");
        }
        if (reached(a.totalTokens(), tokensPerAgent)) {
            return Optional.of("Stopped: agent " + agentId + " used " + a.totalTokens() + " tokens, its budget is "
                    + tokensPerAgent + ".");
        }
        if (reached(a.costUsd(), costPerAgentUsd)) {
            return Optional.of("Stopped: agent " + agentId + " cost " + usd(a.costUsd()) + ", its budget is "
                    + usd(costPerAgentUsd) + ".");
        }
        if (teamUsage == null) {
            return Optional.empty();
        }
        String who = team == null ? "the team" : "team " + team;
        if (reached(teamUsage.totalTokens(), tokensPerTeam)) {
            return Optional.of("Stopped: " + who + " used " + teamUsage.totalTokens() + " tokens, its budget is "
                    + tokensPerTeam + ".");
        }
        if (reached(teamUsage.costUsd(), costPerTeamUsd)) {
            return Optional.of("Stopped: " + who + " cost " + usd(teamUsage.costUsd()) + ", its budget is "
                    + usd(costPerTeamUsd) + ".");
        }
        return Optional.empty();
    }

    private static boolean reached(double used, double budget) {
        return budget > 0 && used >= budget;
    }

    /** Dollars with 2 to 6 decimals: budgets of a few cents must still read differently from their usage. */
    static String usd(double v) {
        BigDecimal d = BigDecimal.valueOf(v).setScale(6, RoundingMode.HALF_UP).stripTrailingZeros();
        if (d.scale() < 2) {
            d = d.setScale(2, RoundingMode.UNNECESSARY);
        }
        return "$" + d.toPlainString();
    }

    private static void nonNegative(String name, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(name + " must be 0 (unlimited) or positive, not " + v);
        }
    }

    private static void nonNegative(String name, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(name + " must be 0 (unlimited) or a positive finite number, not " + v);
        }
    }
}

package dev.cohort.core.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Token and cost budgets of one turn, of one agent over its life, of a whole team (every agent's saved usage) and of a
 * whole team within the current UTC day (the lead's usage ledger from 00:00 UTC on); 0 = unlimited. A budget is
 * <i>reached</i> when the usage is at or above it; {@link #exceeded} is the pure decision, the loop calls it between
 * steps and ends the turn with the sentence it returns. The defaults ({@link #defaults()}) are 0 but one: a limit in
 * money or on one turn's work is the operator's choice, and a made-up one would stop real work; but a team whose
 * agents run unattended (cron jobs, a model looping on itself) must not spend without end on a fresh install, so the
 * team's tokens per UTC day default to {@link #DEFAULT_TOKENS_PER_TEAM_PER_DAY}. Cost budgets count only what the
 * models' prices ({@link EngineSettings#price}: configured, else the built-in table) make of the tokens: a call whose
 * model has no price counts nothing toward them, and {@link #unpriced} is the warning that says so.
 *
 * @param tokensPerTurn   input + output tokens of one turn (its subagents included)
 * @param tokensPerAgent  input + output tokens over the agent's life
 * @param tokensPerTeam   input + output tokens of all the team's agents together
 * @param costPerTurnUsd  USD of one turn
 * @param costPerAgentUsd USD over the agent's life
 * @param costPerTeamUsd  USD of all the team's agents together
 * @param tokensPerTeamPerDay  input + output tokens of all the team's agents within the current UTC day
 * @param costPerTeamPerDayUsd USD of all the team's agents within the current UTC day
 */
public record Budgets(long tokensPerTurn, long tokensPerAgent, long tokensPerTeam, double costPerTurnUsd,
        double costPerAgentUsd, double costPerTeamUsd, long tokensPerTeamPerDay, double costPerTeamPerDayUsd) {

    private static final Budgets UNLIMITED = new Budgets(0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * The default of {@link #tokensPerTeamPerDay}: 5 million tokens, a day of steady work by a lead and a few
     * teammates (a long coding turn is 100-300k), yet a bound on what a runaway loop or a too-frequent cron job spends
     * while nobody watches. Overridden by {@code cohort.engine.budgets.tokens-per-team-per-day} (0 = unlimited) and per
     * team ({@code cohort budget --set tokens-per-team-per-day=…}).
     */
    public static final long DEFAULT_TOKENS_PER_TEAM_PER_DAY = 5_000_000;

    private static final Budgets DEFAULTS = new Budgets(0, 0, 0, 0, 0, 0, DEFAULT_TOKENS_PER_TEAM_PER_DAY, 0);

    /** The scope of the per-day team budgets in a {@link Breach} and the {@code budget_*} events. */
    public static final String TEAM_DAY = "team-day";

    public Budgets {
        nonNegative("tokensPerTurn", tokensPerTurn);
        nonNegative("tokensPerAgent", tokensPerAgent);
        nonNegative("tokensPerTeam", tokensPerTeam);
        nonNegative("costPerTurnUsd", costPerTurnUsd);
        nonNegative("costPerAgentUsd", costPerAgentUsd);
        nonNegative("costPerTeamUsd", costPerTeamUsd);
        nonNegative("tokensPerTeamPerDay", tokensPerTeamPerDay);
        nonNegative("costPerTeamPerDayUsd", costPerTeamPerDayUsd);
    }

    /** Budgets without the per-day team budgets (unlimited). */
    public Budgets(long tokensPerTurn, long tokensPerAgent, long tokensPerTeam, double costPerTurnUsd,
            double costPerAgentUsd, double costPerTeamUsd) {
        this(tokensPerTurn, tokensPerAgent, tokensPerTeam, costPerTurnUsd, costPerAgentUsd, costPerTeamUsd, 0, 0);
    }

    /** Whether a per-day team budget is set (the host's usage of the day is then read). */
    public boolean limitsTeamDay() {
        return tokensPerTeamPerDay > 0 || costPerTeamPerDayUsd > 0;
    }

    /** Whether a team budget (over the team's life) is set. */
    public boolean limitsTeam() {
        return tokensPerTeam > 0 || costPerTeamUsd > 0;
    }

    /** The start (00:00 UTC) of the UTC day {@code now} falls in: a per-day budget counts usage from there on. */
    public static Instant startOfUtcDay(Instant now) {
        return LocalDate.ofInstant(now, ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /**
     * A team's usage within one UTC day as a host last read it (a teammate host caches the lead's ledger for a few
     * seconds). {@link #on} is the usage that counts at a given time: none once the day is over, so a value read
     * before midnight never holds back the next day.
     *
     * @param day   the UTC day the usage is of
     * @param usage the team's usage in that day up to the read
     */
    public record DayUsage(LocalDate day, Usage usage) {

        public DayUsage {
            Objects.requireNonNull(day, "day");
            usage = usage == null ? Usage.ZERO : usage;
        }

        /** The usage of the UTC day of {@code clock}'s now: {@link #usage} on {@link #day}, nothing on a later day. */
        public Usage on(Clock clock) {
            return day.equals(LocalDate.now(clock.withZone(ZoneOffset.UTC))) ? usage : Usage.ZERO;
        }
    }

    /** No budget at all. */
    public static Budgets unlimited() {
        return UNLIMITED;
    }

    /** The built-in budgets: unlimited but the team's tokens per UTC day ({@link #DEFAULT_TOKENS_PER_TEAM_PER_DAY}). */
    public static Budgets defaults() {
        return DEFAULTS;
    }

    /** These budgets with the turn's and the agent's token budgets replaced. */
    public Budgets withTokens(long perTurn, long perAgent) {
        return new Budgets(perTurn, perAgent, tokensPerTeam, costPerTurnUsd, costPerAgentUsd, costPerTeamUsd,
                tokensPerTeamPerDay, costPerTeamPerDayUsd);
    }

    /** The share of a budget at which {@link #crossed} warns (80 %). */
    public static final double WARN_AT = 0.8;

    /**
     * One budget reached or nearly reached.
     *
     * @param budget the budget's name as the API and {@code cohort.engine.budgets.*} spell it ({@code tokensPerTurn},
     *               {@code costPerAgentUsd}, …)
     * @param scope  {@code turn}, {@code agent}, {@code team} or {@code team-day} ({@link #TEAM_DAY})
     * @param used   the usage: tokens, or USD for the {@code cost…} budgets
     * @param limit  the budget, same unit
     * @param text   the sentence for people, naming usage and budget
     */
    public record Breach(String budget, String scope, double used, double limit, String text) {
    }

    /**
     * The sentence of the first budget reached, checked in this order: the turn's tokens, the turn's cost, the
     * agent's tokens, the agent's cost, the team's tokens, the team's cost. The sentence is shown to the user and
     * ends the turn; it names the usage and the budget. The per-day team budgets are not checked (see the 6-argument
     * form).
     *
     * @param agentId   the agent, named in the agent's sentences
     * @param team      the team, named in the team's sentences ({@code null}: "the team")
     * @param turn      usage of the turn so far ({@code null} = {@link Usage#ZERO})
     * @param agent     usage of the agent over its life, this turn included ({@code null} = {@link Usage#ZERO})
     * @param teamUsage usage of the team's agents together; {@code null} when the host does not track it (the team's
     *                  budgets are then not checked)
     */
    public Optional<String> exceeded(String agentId, String team, Usage turn, Usage agent, Usage teamUsage) {
        return breach(agentId, team, turn, agent, teamUsage, null).map(Breach::text);
    }

    /**
     * {@link #exceeded(String, String, Usage, Usage, Usage)} and then the team's per-day budgets (tokens, then cost)
     * against {@code teamToday}, the team's usage since 00:00 UTC ({@code null}: not tracked, not checked).
     */
    public Optional<String> exceeded(String agentId, String team, Usage turn, Usage agent, Usage teamUsage,
            Usage teamToday) {
        return breach(agentId, team, turn, agent, teamUsage, teamToday).map(Breach::text);
    }

    /** {@link #exceeded} with the budget's name, scope, usage and limit. */
    public Optional<Breach> breach(String agentId, String team, Usage turn, Usage agent, Usage teamUsage) {
        return breach(agentId, team, turn, agent, teamUsage, null);
    }

    /** {@link #exceeded(String, String, Usage, Usage, Usage, Usage)} with the budget's name, scope, usage and limit. */
    public Optional<Breach> breach(String agentId, String team, Usage turn, Usage agent, Usage teamUsage,
            Usage teamToday) {
        Usage t = turn == null ? Usage.ZERO : turn;
        Usage a = agent == null ? Usage.ZERO : agent;
        if (reached(t.totalTokens(), tokensPerTurn)) {
            return Optional.of(new Breach("tokensPerTurn", "turn", t.totalTokens(), tokensPerTurn,
                    "Stopped: this turn used " + t.totalTokens() + " tokens, its budget is " + tokensPerTurn + "."));
        }
        if (reached(t.costUsd(), costPerTurnUsd)) {
            return Optional.of(new Breach("costPerTurnUsd", "turn", t.costUsd(), costPerTurnUsd,
                    "Stopped: this turn cost " + usd(t.costUsd()) + ", its budget is " + usd(costPerTurnUsd) + "."));
        }
        if (reached(a.totalTokens(), tokensPerAgent)) {
            return Optional.of(new Breach("tokensPerAgent", "agent", a.totalTokens(), tokensPerAgent,
                    "Stopped: agent " + agentId + " used " + a.totalTokens() + " tokens, its budget is "
                            + tokensPerAgent + "."));
        }
        if (reached(a.costUsd(), costPerAgentUsd)) {
            return Optional.of(new Breach("costPerAgentUsd", "agent", a.costUsd(), costPerAgentUsd,
                    "Stopped: agent " + agentId + " cost " + usd(a.costUsd()) + ", its budget is "
                            + usd(costPerAgentUsd) + "."));
        }
        String who = team == null ? "the team" : "team " + team;
        if (teamUsage != null) {
            Optional<Breach> life = teamBreach(who, teamUsage);
            if (life.isPresent()) {
                return life;
            }
        }
        if (teamToday == null) {
            return Optional.empty();
        }
        if (reached(teamToday.totalTokens(), tokensPerTeamPerDay)) {
            return Optional.of(new Breach("tokensPerTeamPerDay", TEAM_DAY, teamToday.totalTokens(), tokensPerTeamPerDay,
                    "Stopped: " + who + " used " + teamToday.totalTokens() + " tokens today (UTC), its daily budget is "
                            + tokensPerTeamPerDay + "; it resets at 00:00 UTC."));
        }
        if (reached(teamToday.costUsd(), costPerTeamPerDayUsd)) {
            return Optional.of(new Breach("costPerTeamPerDayUsd", TEAM_DAY, teamToday.costUsd(), costPerTeamPerDayUsd,
                    "Stopped: " + who + " cost " + usd(teamToday.costUsd()) + " today (UTC), its daily budget is "
                            + usd(costPerTeamPerDayUsd) + "; it resets at 00:00 UTC."));
        }
        return Optional.empty();
    }

    private Optional<Breach> teamBreach(String who, Usage teamUsage) {
        if (reached(teamUsage.totalTokens(), tokensPerTeam)) {
            return Optional.of(new Breach("tokensPerTeam", "team", teamUsage.totalTokens(), tokensPerTeam,
                    "Stopped: " + who + " used " + teamUsage.totalTokens() + " tokens, its budget is " + tokensPerTeam
                            + "."));
        }
        if (reached(teamUsage.costUsd(), costPerTeamUsd)) {
            return Optional.of(new Breach("costPerTeamUsd", "team", teamUsage.costUsd(), costPerTeamUsd,
                    "Stopped: " + who + " cost " + usd(teamUsage.costUsd()) + ", its budget is " + usd(costPerTeamUsd)
                            + "."));
        }
        return Optional.empty();
    }

    /**
     * The warning owed when a call's model has no known price while a USD budget is set: such a call counts 0 USD, so
     * the USD budgets cannot limit it (its tokens still count toward the token budgets). Given for the turn's first
     * unpriced call only ({@code turnBefore} has none), naming the first USD budget set (turn, agent, team, team-day)
     * and the model; empty when no USD budget is set or the call is priced.
     *
     * @param model      the model that answered (named in the text; {@code null}: "the model")
     * @param turnBefore the turn's usage before the call
     * @param call       the call's usage
     */
    public Optional<Breach> unpriced(String model, Usage turnBefore, Usage call) {
        if (call == null || call.priceKnown() || (turnBefore != null && !turnBefore.priceKnown())) {
            return Optional.empty();
        }
        String budget;
        String scope;
        double limit;
        if (costPerTurnUsd > 0) {
            budget = "costPerTurnUsd";
            scope = "turn";
            limit = costPerTurnUsd;
        } else if (costPerAgentUsd > 0) {
            budget = "costPerAgentUsd";
            scope = "agent";
            limit = costPerAgentUsd;
        } else if (costPerTeamUsd > 0) {
            budget = "costPerTeamUsd";
            scope = "team";
            limit = costPerTeamUsd;
        } else if (costPerTeamPerDayUsd > 0) {
            budget = "costPerTeamPerDayUsd";
            scope = TEAM_DAY;
            limit = costPerTeamPerDayUsd;
        } else {
            return Optional.empty();
        }
        String name = model == null || model.isBlank() ? "the model" : "model " + model;
        String key = model == null || model.isBlank() ? "<model>" : model;
        double used = turnBefore == null ? 0 : turnBefore.costUsd();
        return Optional.of(new Breach(budget, scope, used, limit, "Unknown price: " + name + " has no price, so its"
                + " calls count no cost and the USD budgets (" + budget + " " + usd(limit) + ") cannot limit them;"
                + " set cohort.engine.prices.\"" + key + "\".* to price it."));
    }

    /**
     * The budgets whose {@link #WARN_AT 80 %} mark {@code delta} (one model call, or a subagent's usage) crossed: the
     * usage before it was below the mark and is at or above it after. Each crossing is seen by exactly one call, so a
     * warning is given once per budget per turn / agent life / team, not at every step (and again only after the
     * budget was raised above the usage). The team's marks are checked only when {@code teamBefore} is not null.
     *
     * @param turnBefore  the turn's usage before {@code delta}
     * @param agentBefore the agent's usage before {@code delta}, {@code null}: not counted (a subagent's loop)
     * @param teamBefore  the team's usage before {@code delta}, {@code null}: not tracked
     */
    public List<Breach> crossed(String agentId, String team, Usage turnBefore, Usage agentBefore,
            Usage teamBefore, Usage delta) {
        return crossed(agentId, team, turnBefore, agentBefore, teamBefore, null, delta);
    }

    /**
     * {@link #crossed(String, String, Usage, Usage, Usage, Usage)} and the per-day team budgets' marks against
     * {@code todayBefore}, the team's usage since 00:00 UTC before {@code delta} ({@code null}: not tracked); a
     * day's warning is given once per day (the usage starts again from 0 at 00:00 UTC).
     */
    public List<Breach> crossed(String agentId, String team, Usage turnBefore, Usage agentBefore,
            Usage teamBefore, Usage todayBefore, Usage delta) {
        List<Breach> out = new ArrayList<>();
        Usage d = delta == null ? Usage.ZERO : delta;
        Usage t = turnBefore == null ? Usage.ZERO : turnBefore;
        crossing(out, "tokensPerTurn", "turn", "this turn", t.totalTokens(), d.totalTokens(), tokensPerTurn, false);
        crossing(out, "costPerTurnUsd", "turn", "this turn", t.costUsd(), d.costUsd(), costPerTurnUsd, true);
        if (agentBefore != null) {
            String who = "agent " + agentId;
            crossing(out, "tokensPerAgent", "agent", who, agentBefore.totalTokens(), d.totalTokens(), tokensPerAgent,
                    false);
            crossing(out, "costPerAgentUsd", "agent", who, agentBefore.costUsd(), d.costUsd(), costPerAgentUsd, true);
        }
        if (teamBefore != null) {
            String who = team == null ? "the team" : "team " + team;
            crossing(out, "tokensPerTeam", "team", who, teamBefore.totalTokens(), d.totalTokens(), tokensPerTeam, false);
            crossing(out, "costPerTeamUsd", "team", who, teamBefore.costUsd(), d.costUsd(), costPerTeamUsd, true);
        }
        if (todayBefore != null) {
            String who = (team == null ? "the team" : "team " + team) + " today (UTC)";
            crossing(out, "tokensPerTeamPerDay", TEAM_DAY, who, todayBefore.totalTokens(), d.totalTokens(),
                    tokensPerTeamPerDay, false);
            crossing(out, "costPerTeamPerDayUsd", TEAM_DAY, who, todayBefore.costUsd(), d.costUsd(),
                    costPerTeamPerDayUsd, true);
        }
        return out;
    }

    private static void crossing(List<Breach> out, String budget, String scope, String who, double before,
            double delta, double limit, boolean money) {
        if (limit <= 0 || delta <= 0) {
            return;
        }
        double mark = limit * WARN_AT;
        double after = before + delta;
        if (before < mark && after >= mark) {
            long pct = Math.round(after * 100 / limit);
            String used = money ? usd(after) : String.valueOf((long) after);
            String lim = money ? usd(limit) : String.valueOf((long) limit);
            out.add(new Breach(budget, scope, after, limit, "Warning: " + who + " has used " + used + (money ? "" : " tokens")
                    + ", " + pct + " % of its budget " + budget + " (" + lim + ")."));
        }
    }

    /** These budgets with every non-null value of {@code o} in place of its own ({@code null} = keep). */
    public Budgets with(Overrides o) {
        if (o == null) {
            return this;
        }
        return new Budgets(o.tokensPerTurn() != null ? o.tokensPerTurn() : tokensPerTurn,
                o.tokensPerAgent() != null ? o.tokensPerAgent() : tokensPerAgent,
                o.tokensPerTeam() != null ? o.tokensPerTeam() : tokensPerTeam,
                o.costPerTurnUsd() != null ? o.costPerTurnUsd() : costPerTurnUsd,
                o.costPerAgentUsd() != null ? o.costPerAgentUsd() : costPerAgentUsd,
                o.costPerTeamUsd() != null ? o.costPerTeamUsd() : costPerTeamUsd,
                o.tokensPerTeamPerDay() != null ? o.tokensPerTeamPerDay() : tokensPerTeamPerDay,
                o.costPerTeamPerDayUsd() != null ? o.costPerTeamPerDayUsd() : costPerTeamPerDayUsd);
    }

    /**
     * A team's own budgets over the configured defaults (lead's {@code PUT /api/v1/teams/{team}/budgets}); {@code null}
     * = the default, 0 = unlimited.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Overrides(Long tokensPerTurn, Long tokensPerAgent, Long tokensPerTeam, Double costPerTurnUsd,
            Double costPerAgentUsd, Double costPerTeamUsd, Long tokensPerTeamPerDay, Double costPerTeamPerDayUsd) {

        public static final Overrides NONE = new Overrides(null, null, null, null, null, null, null, null);

        /** Overrides that leave the per-day team budgets at their defaults. */
        public Overrides(Long tokensPerTurn, Long tokensPerAgent, Long tokensPerTeam, Double costPerTurnUsd,
                Double costPerAgentUsd, Double costPerTeamUsd) {
            this(tokensPerTurn, tokensPerAgent, tokensPerTeam, costPerTurnUsd, costPerAgentUsd, costPerTeamUsd, null,
                    null);
        }

        public Overrides {
            if (tokensPerTurn != null) {
                nonNegative("tokensPerTurn", tokensPerTurn);
            }
            if (tokensPerAgent != null) {
                nonNegative("tokensPerAgent", tokensPerAgent);
            }
            if (tokensPerTeam != null) {
                nonNegative("tokensPerTeam", tokensPerTeam);
            }
            if (costPerTurnUsd != null) {
                nonNegative("costPerTurnUsd", costPerTurnUsd);
            }
            if (costPerAgentUsd != null) {
                nonNegative("costPerAgentUsd", costPerAgentUsd);
            }
            if (costPerTeamUsd != null) {
                nonNegative("costPerTeamUsd", costPerTeamUsd);
            }
            if (tokensPerTeamPerDay != null) {
                nonNegative("tokensPerTeamPerDay", tokensPerTeamPerDay);
            }
            if (costPerTeamPerDayUsd != null) {
                nonNegative("costPerTeamPerDayUsd", costPerTeamPerDayUsd);
            }
        }

        /** These overrides with every non-null value of {@code o} in place of its own. */
        public Overrides merge(Overrides o) {
            if (o == null) {
                return this;
            }
            return new Overrides(o.tokensPerTurn != null ? o.tokensPerTurn : tokensPerTurn,
                    o.tokensPerAgent != null ? o.tokensPerAgent : tokensPerAgent,
                    o.tokensPerTeam != null ? o.tokensPerTeam : tokensPerTeam,
                    o.costPerTurnUsd != null ? o.costPerTurnUsd : costPerTurnUsd,
                    o.costPerAgentUsd != null ? o.costPerAgentUsd : costPerAgentUsd,
                    o.costPerTeamUsd != null ? o.costPerTeamUsd : costPerTeamUsd,
                    o.tokensPerTeamPerDay != null ? o.tokensPerTeamPerDay : tokensPerTeamPerDay,
                    o.costPerTeamPerDayUsd != null ? o.costPerTeamPerDayUsd : costPerTeamPerDayUsd);
        }
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

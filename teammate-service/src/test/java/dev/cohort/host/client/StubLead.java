package dev.cohort.host.client;

import java.util.function.Function;

/**
 * A {@link LeadInternalClient} whose {@link #team} answers from a function instead of lead-service, for this module's
 * unit tests (in this package to reach the client's package-private constructor).
 */
public final class StubLead extends LeadInternalClient {
    private volatile Function<String, LeadTeam> teams;

    /** A lead that answers {@code team(id)} with {@code teams.apply(id)}; a function may throw, as a lead away does. */
    public StubLead(Function<String, LeadTeam> teams) {
        this.teams = teams;
    }

    /** Answers from now on with {@code t}. */
    public void answer(Function<String, LeadTeam> t) {
        teams = t;
    }

    @Override
    public LeadTeam team(String team) {
        return teams.apply(team);
    }
}

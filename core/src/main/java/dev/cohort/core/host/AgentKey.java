package dev.cohort.core.host;

/**
 * The identity of a hosted agent: its team and its name in the team ({@code lead} for the lead). {@link #id()} is
 * the {@code <team>/<name>} form used as a Kafka key and in logs.
 */
public record AgentKey(String team, String name) {
    public AgentKey {
        if (team == null || team.isBlank() || name == null || name.isBlank()) {
            throw new IllegalArgumentException("an agent key needs a team and a name, was " + team + "/" + name);
        }
    }

    public String id() {
        return team + "/" + name;
    }

    @Override
    public String toString() {
        return id();
    }
}

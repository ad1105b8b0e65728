package dev.cohort.core.tools;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Who runs a loop: its name (what tool catalogues list), the identity it is told in its system prompt, and so its
 * default tool set (the tools listing it). The lead, the teammates and the subagents are declared here; another kind
 * of agent declares its own with {@link #declare}, in its own program, once per process.
 */
public final class AgentRole {

    /** The identity line of a role's system prompt, for one agent of one team. */
    @FunctionalInterface
    public interface Identity {
        String describe(String team, String agent);
    }

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,39}");
    private static final Map<String, AgentRole> DECLARED = new ConcurrentHashMap<>();

    /** The team's lead (lead-service). */
    public static final AgentRole LEAD = declare("lead", (team, agent) -> "You are the lead agent of the team '" + team
            + "' in Cohort, a team of coding agents. You take work from people and the clock, plan it, do it or"
            + " delegate it to teammates, and report the outcome.");
    /** A teammate (teammate-service). */
    public static final AgentRole TEAMMATE = declare("teammate", (team, agent) -> "You are '" + agent
            + "', a teammate in the team '" + team + "' in Cohort, a team of coding agents. You do the tasks you claim"
            + " or are given and report results to the lead.");
    /** A subagent spawned by {@code spawn_subagent}: fresh conversation, file/shell tools only, no nesting. */
    public static final AgentRole SUBAGENT = declare("subagent", (team, agent) -> "You are a subagent of '" + agent
            + "' in the team '" + team + "'. Do the task you were given with the tools you have, then answer with a"
            + " concise summary of what you found or did. Do not delegate.");

    private final String name;
    private final Identity identity;

    private AgentRole(String name, Identity identity) {
        this.name = name;
        this.identity = identity;
    }

    /**
     * Declares a kind of agent.
     *
     * @param name     lower case, e.g. {@code reviewer}: what a tool's roles list names it by
     * @param identity its system prompt's identity line
     * @throws IllegalArgumentException for a name that is not lower-case letters, digits, {@code -} and {@code _}
     * @throws IllegalStateException    when the name is declared already
     */
    public static AgentRole declare(String name, Identity identity) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a role's name is 1-40 lower-case letters, digits, '-' or '_', starting"
                    + " with a letter: '" + name + "'");
        }
        AgentRole role = new AgentRole(name, Objects.requireNonNull(identity, "identity"));
        AgentRole before = DECLARED.putIfAbsent(name, role);
        if (before != null) {
            throw new IllegalStateException("the role '" + name + "' is declared already");
        }
        return role;
    }

    /** The declared role of that name (any case), if any. */
    public static Optional<AgentRole> named(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(DECLARED.get(name.toLowerCase(Locale.ROOT)));
    }

    /** Its lower-case name. */
    public String name() {
        return name;
    }

    /** Its identity line for {@code agent} of {@code team}. */
    public String identity(String team, String agent) {
        return identity.describe(team, agent);
    }

    @Override
    public String toString() {
        return name;
    }
}

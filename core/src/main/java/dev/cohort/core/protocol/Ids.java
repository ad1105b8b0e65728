package dev.cohort.core.protocol;

import java.util.UUID;
import java.util.regex.Pattern;

/** Identifier rules of the contract (ARCHITECTURE §2): team ids, agent names, full agent ids. */
public final class Ids {
    /** Team id: lowercase, starts with a letter or digit, at most 63 characters (fits a DNS label / k8s name). */
    public static final Pattern TEAM = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    /** Agent name: {@code lead} or a teammate name, at most 32 characters. */
    public static final Pattern AGENT = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    /** The lead's agent name in every team. */
    public static final String LEAD = "lead";
    /** The team that exists from the start. */
    public static final String DEFAULT_TEAM = "default";

    private Ids() {
    }

    public static boolean isTeam(String id) {
        return id != null && TEAM.matcher(id).matches();
    }

    public static boolean isAgent(String name) {
        return name != null && AGENT.matcher(name).matches();
    }

    /** The full agent id {@code <team>/<name>}, also the key on {@link Topics#TEAMMATE_INBOX} and the OpenAI {@code user}. */
    public static String agentId(String team, String name) {
        return team + "/" + name;
    }

    /** A new random id for messages, prompts and events. */
    public static String newId() {
        return UUID.randomUUID().toString();
    }
}

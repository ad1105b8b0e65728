package dev.cohort.core.protocol;

import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.UUID;

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

    /** A new random id for messages, prompts and turns (unguessable: {@link UUID#randomUUID}, SecureRandom). */
    public static String newId() {
        return UUID.randomUUID().toString();
    }

    /**
     * A new event id: a UUID version 7 (RFC 9562: 48 bits of Unix milliseconds, then 74 random bits) drawn from
     * {@link java.util.concurrent.ThreadLocalRandom} instead of SecureRandom ({@code UUID.randomUUID} was ~4 %
     * of the lead's agent thread, three events per round). An event id only has to be unique: it dedupes a redelivered
     * event and keys the usage ledger; nothing is authorised by knowing one, and every event (id included) is readable
     * by whoever may read the team's stream. Unique because two ids collide only when drawn in the same millisecond
     * with the same 74 random bits; time-ordered, so the store's unique index on it is appended to at its end.
     */
    public static String newEventId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long millis = System.currentTimeMillis();
        long high = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL); // version 7
        long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L; // variant 10
        return new UUID(high, low).toString();
    }
}

package dev.cohort.lead.tasks;

/**
 * Who acts on a task, as the host established it (never from model arguments).
 *
 * @param agent     the agent name in the team
 * @param token     the lease token the caller holds or asks for; null when identified by name alone
 * @param ownerOnly identity is the name alone: the lead's tools (one lead per team, durable, no heartbeats);
 *                  teammates over the internal API are identified by name and lease token
 */
public record Holder(String agent, String token, boolean ownerOnly) {

    /** The caller of a board tool: identified by its agent name. */
    public static Holder byName(String agent) {
        return new Holder(agent, null, true);
    }

    /** A teammate over the internal API: its name and its lease token. */
    public static Holder withLease(String agent, String token) {
        return new Holder(agent, token, false);
    }
}

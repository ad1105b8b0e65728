package dev.cohort.lead.usage;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import java.time.Instant;
import java.util.Optional;

/**
 * One model call's usage, as an {@code assistant_message} event states it: the row {@code lead.usage} keeps for it.
 *
 * @param eventId          the event's id (the ledger's key)
 * @param team             the team
 * @param agent            the agent that made the call (a subagent's call counts for the agent that ran it)
 * @param turnId           the turn, if the event names one
 * @param model            the model that answered, if the event names one
 * @param ts               when the event was made
 * @param promptTokens     prompt tokens
 * @param completionTokens completion tokens
 * @param cachedTokens     prompt tokens served from the provider's cache
 * @param costUsd          the call's cost at its model's price (0 without one)
 * @param cacheWriteTokens prompt tokens written to the provider's cache
 * @param priceKnown       whether the call's model had a price; an event that does not say (from before the field)
 *                         is priced when it states a cost or used no tokens
 */
public record UsageRow(String eventId, String team, String agent, String turnId, String model, Instant ts,
        long promptTokens, long completionTokens, long cachedTokens, double costUsd, long cacheWriteTokens,
        boolean priceKnown) {

    /** A row without cache writes, of a priced call. */
    public UsageRow(String eventId, String team, String agent, String turnId, String model, Instant ts,
            long promptTokens, long completionTokens, long cachedTokens, double costUsd) {
        this(eventId, team, agent, turnId, model, ts, promptTokens, completionTokens, cachedTokens, costUsd, 0, true);
    }

    /** The usage an event states: present for an {@code assistant_message} only. */
    public static Optional<UsageRow> of(Event e) {
        if (e.type() != EventType.ASSISTANT_MESSAGE) {
            return Optional.empty();
        }
        JsonNode d = e.data();
        long in = nonNegative(d, "inputTokens");
        long out = nonNegative(d, "outputTokens");
        double cost = cost(d);
        JsonNode known = d == null ? null : d.get("priceKnown");
        boolean priced = known != null && known.isBoolean() ? known.asBoolean() : cost > 0 || in + out == 0;
        return Optional.of(new UsageRow(e.id(), e.team(), e.agent() == null ? "unknown" : e.agent(),
                text(d, "turnId"), text(d, "model"), e.ts(), in, out, nonNegative(d, "cachedTokens"), cost,
                nonNegative(d, "cacheWriteTokens"), priced));
    }

    private static String text(JsonNode d, String field) {
        JsonNode v = d == null ? null : d.get(field);
        return v == null || !v.isTextual() || v.asText().isBlank() ? null : v.asText();
    }

    private static long nonNegative(JsonNode d, String field) {
        JsonNode v = d == null ? null : d.get(field);
        return v == null || !v.isNumber() ? 0 : Math.max(0, v.asLong());
    }

    private static double cost(JsonNode d) {
        JsonNode v = d == null ? null : d.get("costUsd");
        double c = v == null || !v.isNumber() ? 0 : v.asDouble();
        return Double.isFinite(c) && c > 0 ? c : 0;
    }
}

package dev.cohort.core.protocol;

import java.util.List;

/** The Kafka topics of the public contract (ARCHITECTURE §4.2), defined once for every service. */
public final class Topics {
    /** Prompts for a team's lead; key = team id; written by anyone, read by lead-service. */
    public static final String PROMPTS = "cohort.prompts";
    /** Agent messages to a team's lead; key = team id. */
    public static final String LEAD_INBOX = "cohort.lead.inbox";
    /** Spawn commands, messages, protocol requests for teammates; key = {@code <team>/<name>}. */
    public static final String TEAMMATE_INBOX = "cohort.teammate.inbox";
    /** The observable event stream; key = team id. */
    public static final String EVENTS = "cohort.events";
    /** Records that could not be processed, with the error in headers; key = the original key. */
    public static final String DLQ = "cohort.dlq";

    /** Every topic, as a compile-time constant usable in annotations (test resources). */
    public static final String ALL_CSV = PROMPTS + "," + LEAD_INBOX + "," + TEAMMATE_INBOX + "," + EVENTS + "," + DLQ;

    /** Every topic of the contract. */
    public static final List<String> ALL = List.of(PROMPTS, LEAD_INBOX, TEAMMATE_INBOX, EVENTS, DLQ);

    /** Header names on {@link #DLQ} records, shared by every service that dead-letters. */
    public static final String DLQ_HEADER_REASON = "dead-letter-reason";
    public static final String DLQ_HEADER_TOPIC = "dead-letter-topic";

    /**
     * Header on {@link #EVENTS} records of sequenced events (set by the lead replica that stored them): the event's seq
     * in its team, in decimal. A consumer that only needs "team T is stored up to seq N" (the record's key is the team)
     * reads it instead of parsing the event's JSON; a record without it (an unsequenced event of another service) is
     * parsed.
     */
    public static final String EVENTS_HEADER_SEQ = "cohort-seq";
    /** Header on sequenced {@link #EVENTS} records: the lead replica that stored and published them (an opaque id). */
    public static final String EVENTS_HEADER_ORIGIN = "cohort-origin";

    private Topics() {
    }
}

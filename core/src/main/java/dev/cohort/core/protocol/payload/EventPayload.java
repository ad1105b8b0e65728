package dev.cohort.core.protocol.payload;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.cohort.core.protocol.EventType;

/** The typed {@code data} of one event type (ARCHITECTURE §4.2); serialised by Jackson as the event's data. */
public interface EventPayload {
    /** The event type this payload is the data of. */
    @JsonIgnore
    EventType type();
}

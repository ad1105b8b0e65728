package dev.cohort.core.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The one JSON mapping of the wire protocol: ISO timestamps, unknown fields ignored, nulls kept out. */
public final class Json {
    /** Shared, thread-safe mapper. Unknown properties are ignored so newer producers never break older consumers. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private Json() {
    }

    /** Serialises a value; a failure here is a programming error, so it is unchecked. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }

    /** Parses a value or throws {@link ProtocolException} with a message fit for a DLQ record or a 400. */
    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new ProtocolException("invalid " + type.getSimpleName() + " JSON: " + e.getOriginalMessage(), e);
        }
    }
}

package dev.cohort.devstack.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An ordered list of rules for the scripted model; the first matching rule with answers left wins. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Scenario(List<Rule> rules) {

    public Scenario {
        rules = rules == null ? List.of() : List.copyOf(rules);
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            String where = "rule #" + (i + 1) + (rule != null && rule.name() != null ? " '" + rule.name() + "'" : "");
            if (rule == null) {
                throw new IllegalArgumentException(where + " is null");
            }
            rule.validate(where);
        }
    }

    public static Scenario empty() {
        return new Scenario(List.of());
    }

    /** Parses scenario JSON; unknown keys and invalid regexes are errors, so typos fail loudly. */
    public static Scenario parse(String json) {
        try {
            Scenario scenario = Json.MAPPER.readValue(json, Scenario.class);
            if (scenario == null) {
                throw new IllegalArgumentException("empty scenario document");
            }
            return scenario;
        } catch (JsonProcessingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException iae ? iae : e;
            throw new IllegalArgumentException("invalid scenario: " + cause.getMessage(), e);
        }
    }

    /** Reads a scenario from the classpath (context class loader first, as Quarkus tests need). */
    public static Scenario fromResource(String resource) {
        return parse(readResource(resource));
    }

    public static Scenario fromFile(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read scenario " + file, e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** JSON form, accepted by {@link #parse} and by {@code POST /__admin/scenario}. */
    public String toJson() {
        try {
            return Json.MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String readResource(String resource) {
        String name = resource.startsWith("/") ? resource.substring(1) : resource;
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        InputStream in = context == null ? null : context.getResourceAsStream(name);
        if (in == null) {
            in = Scenario.class.getClassLoader().getResourceAsStream(name);
        }
        if (in == null) {
            throw new IllegalArgumentException("scenario resource not found on the classpath: " + resource);
        }
        try (InputStream stream = in) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read scenario resource " + resource, e);
        }
    }

    /** Collects rules in order. */
    public static final class Builder {
        private final List<Rule> rules = new ArrayList<>();

        private Builder() {
        }

        public Builder rule(Rule rule) {
            rules.add(rule);
            return this;
        }

        public Scenario build() {
            return new Scenario(rules);
        }
    }
}

package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A dated table of list prices per model, so that cost works without configuration: the built-in one
 * ({@link #builtin()}) is the resource {@value #RESOURCE}, with its date ({@link #asOf}) and where its figures come
 * from ({@link #source}). A configured price ({@code cohort.engine.prices."<model>".*}) overrides the table's for
 * that model ({@link EngineSettings#price}).
 *
 * <p>A model name is matched ({@link #match}) exactly first, then case-insensitively without a provider prefix
 * ({@code anthropic/claude-sonnet-4-5}), then without a dated suffix ({@code claude-sonnet-4-5-20250929},
 * {@code gpt-4o-2024-08-06}): a dated snapshot takes its family's price.
 *
 * @param asOf   the day the prices were read (ISO date)
 * @param source where the figures come from
 * @param prices the price per model name
 */
public record ModelPrices(String asOf, String source, Map<String, EngineSettings.ModelPrice> prices) {
    /** The built-in table's resource on the class path. */
    public static final String RESOURCE = "/dev/cohort/core/engine/model-prices.json";

    /** A dated suffix: {@code -20250929} (Anthropic) or {@code -2024-08-06} (OpenAI). */
    private static final Pattern DATED = Pattern.compile("-(\\d{8}|\\d{4}-\\d{2}-\\d{2})$");

    private static final class Builtin {
        static final ModelPrices TABLE = load(ModelPrices.class.getResourceAsStream(RESOURCE));
    }

    public ModelPrices {
        prices = prices == null ? Map.of() : Map.copyOf(prices);
    }

    /** The table shipped with the engine ({@value #RESOURCE}), read once. */
    public static ModelPrices builtin() {
        return Builtin.TABLE;
    }

    /** The price of {@code model} in this table ({@link #match}). */
    public Optional<EngineSettings.ModelPrice> find(String model) {
        return match(prices, model);
    }

    /**
     * The price {@code prices} gives {@code model}: its own key, else the first of its names without a provider
     * prefix and without a dated suffix that a key names (keys compared case-insensitively, without their own
     * provider prefix).
     */
    public static Optional<EngineSettings.ModelPrice> match(Map<String, EngineSettings.ModelPrice> prices,
            String model) {
        if (model == null || model.isBlank() || prices.isEmpty()) {
            return Optional.empty();
        }
        EngineSettings.ModelPrice exact = prices.get(model);
        if (exact != null) {
            return Optional.of(exact);
        }
        Map<String, EngineSettings.ModelPrice> byName = new LinkedHashMap<>();
        prices.forEach((k, v) -> byName.putIfAbsent(bare(k), v));
        for (String name : candidates(model)) {
            EngineSettings.ModelPrice p = byName.get(name);
            if (p != null) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** {@code model} lower-cased without a provider prefix, then also without a dated suffix. */
    static List<String> candidates(String model) {
        List<String> out = new ArrayList<>(2);
        String bare = bare(model);
        out.add(bare);
        String undated = DATED.matcher(bare).replaceFirst("");
        if (!undated.equals(bare) && !undated.isEmpty()) {
            out.add(undated);
        }
        return out;
    }

    private static String bare(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        int slash = n.lastIndexOf('/');
        return slash >= 0 ? n.substring(slash + 1) : n;
    }

    /**
     * Reads a table: {@code {"asOf", "source", "models": {"<model>": {"input", "output", "cacheRead"?,
     * "cacheWrite"?}}}}, USD per million tokens; a missing cache read or write price is the input price.
     */
    public static ModelPrices load(InputStream in) {
        if (in == null) {
            throw new IllegalStateException("the model price table " + RESOURCE + " is not on the class path");
        }
        try (in) {
            JsonNode root = Json.MAPPER.readTree(in);
            Map<String, EngineSettings.ModelPrice> prices = new LinkedHashMap<>();
            root.path("models").fields().forEachRemaining(e -> {
                JsonNode m = e.getValue();
                double input = m.path("input").asDouble(0);
                prices.put(e.getKey(), new EngineSettings.ModelPrice(input, m.path("output").asDouble(0),
                        m.path("cacheRead").asDouble(input), m.path("cacheWrite").asDouble(input)));
            });
            return new ModelPrices(root.path("asOf").asText(null), root.path("source").asText(null), prices);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the model price table", e);
        }
    }
}

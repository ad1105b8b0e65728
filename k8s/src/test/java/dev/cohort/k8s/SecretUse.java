package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Least exposure of secrets: a Secret value reaches only a service whose code uses it. A property that merely
 * declares {@code ${COHORT_API_TOKEN:}} but that no code, no other property and no framework reads does not count.
 */
final class SecretUse {

    /** Modules whose main code a service runs besides its own (the shared host and the engine). */
    static final List<String> SHARED_MODULES = List.of("agent-host", "core");
    /** Property prefixes the frameworks read themselves. */
    static final List<String> FRAMEWORK_PREFIXES = List.of("quarkus.", "mp.", "kafka.", "smallrye.");

    private static final Pattern MAPPING = Pattern.compile("@ConfigMapping\\(prefix\\s*=\\s*\"([^\"]+)\"\\)");
    private static final Pattern METHOD = Pattern.compile("(?m)^\\s+(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*[\\w<>, ?.\\[\\]]+\\s+(\\w+)\\(\\);");

    private SecretUse() {
    }

    /** Every env var a Cohort container takes from a Secret feeds a property (or an env read) its service uses. */
    static List<String> secretsAreUsedByTheService(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode w : m.workloads()) {
            String app = Manifest.podLabels(w).get("app.kubernetes.io/name");
            Optional<Properties> props = app == null ? Optional.empty() : CrossReferences.applicationProperties(app);
            if (props.isEmpty()) {
                continue;
            }
            String code = sources(app);
            Set<String> mapped = mappedProperties(code);
            for (JsonNode c : Manifest.podTemplate(w).orElseThrow().path("spec").path("containers")) {
                for (JsonNode e : c.path("env")) {
                    JsonNode ref = e.path("valueFrom").path("secretKeyRef");
                    if (ref.isMissingNode()) {
                        continue;
                    }
                    String env = e.path("name").asText();
                    if (code.contains("\"" + env + "\"")) {
                        continue; // read from the environment directly
                    }
                    List<String> fed = new ArrayList<>();
                    for (String k : props.get().stringPropertyNames()) {
                        String v = props.get().getProperty(k);
                        if (v.contains("${" + env + "}") || v.contains("${" + env + ":")) {
                            fed.add(k);
                        }
                    }
                    if (fed.isEmpty()) {
                        continue; // ENV_VARS_ARE_READ_BY_THE_SERVICE decides on names no property takes
                    }
                    boolean used = fed.stream().anyMatch(k -> FRAMEWORK_PREFIXES.stream().anyMatch(k::startsWith)
                            || code.contains("\"" + k + "\"") || mapped.contains(k)
                            || props.get().stringPropertyNames().stream().filter(o -> !o.equals(k))
                                    .map(o -> props.get().getProperty(o).strip())
                                    .anyMatch(v -> v.equals(k) || v.contains("${" + k + "}") || v.contains("${" + k + ":")));
                    if (!used) {
                        out.add(Manifest.id(w) + ": " + env + " (Secret " + ref.path("name").asText() + " key " + ref.path("key").asText()
                                + ") feeds " + fed + ", which nothing in " + app + " uses: the pod holds a secret it does not need");
                    }
                }
            }
        }
        return out;
    }

    /** The main Java sources of a service and of the shared modules, concatenated. */
    private static String sources(String app) {
        StringBuilder sb = new StringBuilder();
        List<String> modules = new ArrayList<>(List.of(app));
        modules.addAll(SHARED_MODULES);
        for (String module : modules) {
            Path src = Manifest.repo().resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    sb.append(Files.readString(f)).append('\n');
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sb.toString();
    }

    /** Properties bound by {@code @ConfigMapping} interfaces: prefix + each method's kebab-case name. */
    private static Set<String> mappedProperties(String code) {
        Set<String> out = new HashSet<>();
        for (String file : code.split("(?m)^package ")) {
            Matcher pm = MAPPING.matcher(file);
            if (!pm.find()) {
                continue;
            }
            Matcher mm = METHOD.matcher(file);
            while (mm.find()) {
                out.add(pm.group(1) + "." + mm.group(1).replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase());
            }
        }
        return out;
    }
}

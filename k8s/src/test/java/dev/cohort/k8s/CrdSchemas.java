package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Custom resources (Strimzi, KEDA, CloudNativePG) against the operators' real CRDs (vendored in
 * {@code src/test/resources/crds/}), made as strict as the API server's structural-schema pruning would be: an
 * unknown field, which the API server silently drops, is an error here.
 *
 * <p>Sequence per object: find the CRD of its group and kind → the version must exist and be served → take that
 * version's {@code openAPIV3Schema} → make it strict ({@code additionalProperties: false} on every object schema
 * that neither preserves unknown fields nor declares additionalProperties; {@code x-kubernetes-int-or-string} and
 * {@code nullable} spelled out in JSON Schema) → validate with networknt (draft 4, the dialect OpenAPI 3.0 schemas
 * follow); then {@link CelRules} evaluates the schema's {@code x-kubernetes-validations}. {@code metadata} is left to
 * the built-in checks (names, labels).
 */
final class CrdSchemas {

    /** One served version of a CRD. */
    record CrdVersion(String group, String kind, String version, boolean served, JsonNode schema) {
    }

    private static final Map<String, CrdVersion> VERSIONS = load();
    private static final Map<String, Schema> STRICT = new ConcurrentHashMap<>();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4);

    private CrdSchemas() {
    }

    /** group/kind → versions known; used to tell a CR from a built-in. */
    static boolean knowsGroup(String group) {
        return VERSIONS.values().stream().anyMatch(v -> v.group().equals(group));
    }

    /** The CRD version for an object, if its group/kind/version is defined. */
    static Optional<CrdVersion> versionOf(JsonNode o) {
        String api = o.path("apiVersion").asText();
        int slash = api.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        return Optional.ofNullable(VERSIONS.get(api.substring(0, slash) + "/" + o.path("kind").asText() + "/" + api.substring(slash + 1)));
    }

    /** Every CR of the build against its strict CRD schema. */
    static List<String> schemaViolations(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode o : m.objects()) {
            if (BuiltinKinds.isBuiltin(o)) {
                continue;
            }
            String api = o.path("apiVersion").asText();
            String group = api.contains("/") ? api.substring(0, api.indexOf('/')) : api;
            Optional<CrdVersion> v = versionOf(o);
            if (v.isEmpty()) {
                out.add(Manifest.id(o) + ": no matches for kind \"" + o.path("kind").asText() + "\" in version \"" + api + "\""
                        + (knowsGroup(group) ? "" : " (no CRD of group " + group + " is vendored in crds/)"));
                continue;
            }
            if (!v.get().served()) {
                out.add(Manifest.id(o) + ": version " + api + " is not served by the CRD");
                continue;
            }
            Schema schema = STRICT.computeIfAbsent(api + "/" + o.path("kind").asText(),
                    k -> REGISTRY.getSchema(strict(v.get().schema()).toString(), InputFormat.JSON));
            for (var e : schema.validate(o.toString(), InputFormat.JSON)) {
                out.add(Manifest.id(o) + ": " + e.getInstanceLocation() + ": " + e.getMessage());
            }
        }
        return out;
    }

    /** The CEL rules of every CR's schema, evaluated on it. */
    static List<String> celViolations(Manifest m) {
        List<String> out = new ArrayList<>();
        for (JsonNode o : m.objects()) {
            versionOf(o).ifPresent(v -> CelRules.evaluate(v.schema(), o, "", Manifest.id(o), out));
        }
        return out;
    }

    /** A strict copy of an openAPIV3Schema. */
    static ObjectNode strict(JsonNode schema) {
        ObjectNode s = schema.deepCopy();
        // metadata is validated as ObjectMeta by the built-in checks; the CRD only says "type: object"
        if (s.path("properties").has("metadata")) {
            ((ObjectNode) s.path("properties")).set("metadata", JsonNodeFactory.instance.objectNode().put("type", "object").put("x-kubernetes-preserve-unknown-fields", true));
        }
        tighten(s, false);
        return s;
    }

    private static void tighten(JsonNode node, boolean insideLogic) {
        if (!(node instanceof ObjectNode s)) {
            return;
        }
        // value validations only (structural schemas): no new fields are declared under allOf/anyOf/oneOf/not,
        // so their branches must not get additionalProperties: false (they list only the fields they constrain)
        boolean preserve = s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        boolean isObject = "object".equals(s.path("type").asText()) || s.has("properties");
        if (!insideLogic && isObject && !preserve && !s.has("additionalProperties")) {
            s.put("additionalProperties", false);
        }
        if (s.path("x-kubernetes-int-or-string").asBoolean(false) && !s.has("type") && !s.has("anyOf")) {
            ArrayNode any = s.putArray("anyOf");
            any.addObject().put("type", "integer");
            any.addObject().put("type", "string");
        }
        if (s.path("nullable").asBoolean(false) && s.path("type").isTextual()) {
            ArrayNode t = JsonNodeFactory.instance.arrayNode().add(s.path("type").asText()).add("null");
            s.set("type", t);
        }
        s.path("properties").forEach(p -> tighten(p, false));
        tighten(s.path("items"), false);
        if (s.path("additionalProperties").isObject()) {
            tighten(s.path("additionalProperties"), false);
        }
        for (String logic : List.of("allOf", "anyOf", "oneOf")) {
            s.path(logic).forEach(b -> tighten(b, true));
        }
        tighten(s.path("not"), true);
    }

    /** Every CRD document of every file in crds/. */
    static List<JsonNode> crds() {
        List<JsonNode> out = new ArrayList<>();
        Path dir = Manifest.testResources().resolve("crds");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                try (var parser = new YAMLFactory().createParser(f.toFile())) {
                    var it = Manifest.YAML.readValues(parser, JsonNode.class);
                    while (it.hasNext()) {
                        JsonNode d = it.next();
                        if (d != null && "CustomResourceDefinition".equals(d.path("kind").asText())) {
                            out.add(d);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CRDs in " + dir, e);
        }
        return out;
    }

    private static Map<String, CrdVersion> load() {
        Map<String, CrdVersion> out = new LinkedHashMap<>();
        for (JsonNode crd : crds()) {
            String group = crd.path("spec").path("group").asText();
            String kind = crd.path("spec").path("names").path("kind").asText();
            for (JsonNode v : crd.path("spec").path("versions")) {
                out.put(group + "/" + kind + "/" + v.path("name").asText(), new CrdVersion(group, kind, v.path("name").asText(),
                        v.path("served").asBoolean(false), v.path("schema").path("openAPIV3Schema")));
            }
        }
        return out;
    }
}

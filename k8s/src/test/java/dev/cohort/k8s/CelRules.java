package dev.cohort.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The CRDs' {@code x-kubernetes-validations} (CEL), evaluated on each custom resource where the API server would:
 * {@code self} is the value at the schema node that carries the rule.
 *
 * <p>Rules are skipped, never guessed, when they cannot be judged offline: a rule that uses {@code oldSelf} is a
 * transition rule (it needs the stored object of an update), and a rule calling a Kubernetes-only CEL library that
 * cel-java does not ship ({@code quantity()}, {@code isQuantity}, {@code url()}, {@code ip()}, {@code cidr()},
 * {@code format.*}) does not compile; {@link #skipped()} lists them so VALIDATION.md can name each.
 */
final class CelRules {

    /** A rule that is not evaluated, and why. */
    record Skipped(String rule, String reason) {
    }

    private static final Pattern OLD_SELF = Pattern.compile("\\boldSelf\\b");
    private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .addLibraries(CelExtensions.strings(), CelExtensions.bindings(), CelExtensions.math(), CelExtensions.encoders())
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
            .addLibraries(CelExtensions.strings(), CelExtensions.math(), CelExtensions.encoders())
            .build();
    private static final Map<String, Object> PROGRAMS = new ConcurrentHashMap<>();

    private CelRules() {
    }

    /** Why a rule is not evaluated, or empty if it is. */
    static Optional<String> whySkipped(String rule) {
        if (OLD_SELF.matcher(rule).find()) {
            return Optional.of("transition rule (uses oldSelf): needs the stored object of an update");
        }
        Object p = program(rule);
        return p instanceof String err ? Optional.of("does not compile with cel-java's standard and extension libraries: " + err)
                : Optional.empty();
    }

    /** Every rule in the vendored CRDs that is not evaluated, with the reason. */
    static List<Skipped> skipped() {
        List<Skipped> out = new ArrayList<>();
        for (JsonNode crd : CrdSchemas.crds()) {
            List<String> rules = new ArrayList<>();
            collect(crd, rules);
            for (String r : rules) {
                whySkipped(r).ifPresent(why -> out.add(new Skipped(crd.path("metadata").path("name").asText() + ": " + r, why)));
            }
        }
        return out;
    }

    /** Every rule in the vendored CRDs. */
    static List<String> allRules() {
        List<String> rules = new ArrayList<>();
        CrdSchemas.crds().forEach(c -> collect(c, rules));
        return rules;
    }

    private static void collect(JsonNode n, List<String> rules) {
        if (n.isObject()) {
            n.path("x-kubernetes-validations").forEach(v -> rules.add(v.path("rule").asText()));
            n.forEach(c -> collect(c, rules));
        } else if (n.isArray()) {
            n.forEach(c -> collect(c, rules));
        }
    }

    /** Evaluates the rules of {@code schema} on {@code value}, then descends into properties, items and maps. */
    static void evaluate(JsonNode schema, JsonNode value, String path, String id, List<String> out) {
        if (value == null || value.isMissingNode() || value.isNull() || !schema.isObject()) {
            return;
        }
        for (JsonNode v : schema.path("x-kubernetes-validations")) {
            String rule = v.path("rule").asText();
            if (whySkipped(rule).isPresent()) {
                continue;
            }
            CelRuntime.Program program = (CelRuntime.Program) program(rule);
            try {
                Object result = program.eval(Map.of("self", toCel(value)));
                if (!Boolean.TRUE.equals(result)) {
                    String msg = v.path("message").asText(v.path("messageExpression").asText("failed rule: " + rule));
                    out.add(id + ": " + (path.isEmpty() ? "<root>" : path) + ": Invalid value: " + msg + " (rule: " + rule + ")");
                }
            } catch (CelEvaluationException e) {
                // the API server reports a rule that errors (e.g. a missing field without has()) as invalid too
                out.add(id + ": " + (path.isEmpty() ? "<root>" : path) + ": rule " + rule + " cannot be evaluated: " + e.getMessage());
            }
        }
        if (value.isObject()) {
            schema.path("properties").properties().forEach(p -> evaluate(p.getValue(), value.get(p.getKey()), path + "." + p.getKey(), id, out));
            if (schema.path("additionalProperties").isObject()) {
                value.properties().forEach(e -> evaluate(schema.path("additionalProperties"), e.getValue(), path + "." + e.getKey(), id, out));
            }
        } else if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                evaluate(schema.path("items"), value.get(i), path + "[" + i + "]", id, out);
            }
        }
    }

    /** A compiled program, or the compile error as a String. */
    private static Object program(String rule) {
        return PROGRAMS.computeIfAbsent(rule, r -> {
            try {
                CelAbstractSyntaxTree ast = COMPILER.compile(r).getAst();
                return RUNTIME.createProgram(ast);
            } catch (CelValidationException e) {
                return e.getMessage().lines().findFirst().orElse(e.getMessage());
            } catch (CelEvaluationException e) {
                return e.getMessage();
            }
        });
    }

    /** JSON as CEL values: objects → maps, arrays → lists, integers → long, numbers → double. */
    static Object toCel(JsonNode n) {
        if (n.isObject()) {
            Map<String, Object> m = new LinkedHashMap<>();
            n.properties().forEach(e -> {
                if (!e.getValue().isNull()) {
                    m.put(e.getKey(), toCel(e.getValue()));
                }
            });
            return m;
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            n.forEach(x -> l.add(toCel(x)));
            return l;
        }
        if (n.isIntegralNumber()) {
            return n.asLong();
        }
        if (n.isNumber()) {
            return n.asDouble();
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        return n.asText();
    }
}

package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CEL rules of the vendored CRDs: all are evaluated but the transition rules (oldSelf), which VALIDATION.md lists. */
class CelRulesTest {

    @Test
    void everyRuleOfTheCrdsCompilesExceptTheTransitionRulesWhichAreSkipped() {
        List<String> rules = CelRules.allRules();
        List<CelRules.Skipped> skipped = CelRules.skipped();
        skipped.forEach(s -> System.out.println("[cel] skipped " + s.rule() + " -- " + s.reason()));
        // agent-sandbox v0.5.6 adds one rule, a transition rule (a Sandbox's volumeClaimTemplates are immutable)
        assertThat(rules).hasSize(71);
        assertThat(skipped).hasSize(27).allSatisfy(s -> assertThat(s.reason()).startsWith("transition rule (uses oldSelf)"));
        assertThat(rules.stream().filter(r -> CelRules.whySkipped(r).isEmpty())).hasSize(44);
    }

    @Test
    void aRuleIsEvaluatedOnTheValueAtItsSchemaNodeAndReportsItsMessage() throws Exception {
        JsonNode schema = Manifest.YAML.readTree("""
                type: object
                properties:
                  spec:
                    type: object
                    x-kubernetes-validations:
                      - rule: "!has(self.minReplicaCount) || self.minReplicaCount <= (has(self.maxReplicaCount) ? self.maxReplicaCount : 100)"
                        message: min above max
                    properties:
                      minReplicaCount: {type: integer}
                      maxReplicaCount: {type: integer}
                """);
        List<String> out = new ArrayList<>();
        CelRules.evaluate(schema, Manifest.YAML.readTree("spec: {minReplicaCount: 3, maxReplicaCount: 2}"), "", "X/x", out);
        CelRules.evaluate(schema, Manifest.YAML.readTree("spec: {minReplicaCount: 2}"), "", "X/ok", out);
        CelRules.evaluate(schema, Manifest.YAML.readTree("spec: {minReplicaCount: 101}"), "", "X/default", out);
        assertThat(out).containsExactly("X/x: .spec: Invalid value: min above max (rule: " + schema.at("/properties/spec/x-kubernetes-validations/0/rule").asText() + ")",
                "X/default: .spec: Invalid value: min above max (rule: " + schema.at("/properties/spec/x-kubernetes-validations/0/rule").asText() + ")");
    }
}

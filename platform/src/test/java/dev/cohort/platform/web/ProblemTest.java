package dev.cohort.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared problem body: the members each service's clients read today, extensions, and the path-to-token rule. */
class ProblemTest {

    private static JsonNode json(Problem p) {
        return Json.MAPPER.valueToTree(p);
    }

    @Test
    void aPlainProblemHasTheStandardMembersOnlyAndTheReasonPhraseAsTitle() {
        JsonNode body = json(Problem.of(404, "unknown team \"x\""));
        assertThat(body).isEqualTo(Json.MAPPER.valueToTree(Map.of("type", "about:blank", "title", "Not Found",
                "status", 404, "detail", "unknown team \"x\"")));
        assertThat(Problem.of(499, "odd").title()).isEqualTo("Error");
    }

    @Test
    void typeInstanceAndExtensionsAreSerializedNextToTheStandardMembers() {
        Problem p = Problem.of(409, "Conflict", "task_2 is blocked").withType("urn:cohort:problem:blocked")
                .withInstance("/internal/v1/teams/t/tasks/task_2/claim").with("code", "blocked")
                .with("blockers", List.of(Map.of("id", "task_1"))).with("owner", null).with("empty", List.of())
                .with("blank", "");
        JsonNode body = json(p);
        assertThat(body.get("type").asText()).isEqualTo("urn:cohort:problem:blocked");
        assertThat(body.get("instance").asText()).isEqualTo("/internal/v1/teams/t/tasks/task_2/claim");
        assertThat(body.get("code").asText()).isEqualTo("blocked");
        assertThat(body.get("blockers").get(0).get("id").asText()).isEqualTo("task_1");
        assertThat(body.has("owner")).as("null extensions are left out").isFalse();
        assertThat(body.has("empty")).as("empty ones too").isFalse();
        assertThat(body.has("blank")).isFalse();
        assertThat(body.has("extensions")).as("extensions are members, not a nested object").isFalse();
    }

    @Test
    void anExtensionCannotShadowAStandardMember() {
        assertThatThrownBy(() -> Problem.of(400, "x").with("status", 200))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"status\" is a standard problem member");
    }

    @Test
    void theResponseCarriesTheStatusAndTheProblemMediaType() {
        var r = Problem.of(503, "busy").toResponse();
        assertThat(r.getStatus()).isEqualTo(503);
        assertThat(r.getMediaType().toString()).isEqualTo("application/problem+json");
        assertThat(r.getEntity()).isEqualTo(Problem.of(503, "busy"));
    }

    @Test
    void theLongestPrefixDecidesWhichTokenAPathNeeds() {
        Map<String, String> rules = Map.of("/api", "cohort.api.token", "/internal", "cohort.internal.token",
                "/internal/v1/admin", "cohort.admin.token");
        assertThat(BearerTokenFilter.tokenKeyFor(rules, "/api/v1/teams")).hasValue("cohort.api.token");
        assertThat(BearerTokenFilter.tokenKeyFor(rules, "/internal/v1/teams/t/tasks")).hasValue("cohort.internal.token");
        assertThat(BearerTokenFilter.tokenKeyFor(rules, "/internal/v1/admin/x")).hasValue("cohort.admin.token");
        assertThat(BearerTokenFilter.tokenKeyFor(rules, "/q/health/ready")).isEmpty();
        assertThat(BearerTokenFilter.tokenKeyFor(Map.of(), "/api/v1/teams")).as("no rules: nothing checked").isEmpty();
    }
}

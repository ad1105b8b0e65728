package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code cohort chat}'s plan commands and the protocol lines of its event stream. */
class PlanDecisionsTest {

    private static JsonNode json(String s) throws Exception {
        return Json.MAPPER.readTree(s);
    }

    @Test
    void approveAndRejectLinesParseTheIdAndTheOptionalFeedbackAndAMissingIdIsAUsageError() {
        assertThat(PlanDecisions.parse("/approve-plan 1a2b3c4d")).isEqualTo(new PlanDecisions.Decision("1a2b3c4d", true, null));
        assertThat(PlanDecisions.parse("/reject-plan  1a2b  add an email column "))
                .isEqualTo(new PlanDecisions.Decision("1a2b", false, "add an email column"));
        assertThatThrownBy(() -> PlanDecisions.parse("/reject-plan"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("usage: /reject-plan <request id> [feedback]  (/plans lists them)");
    }

    @Test
    void anIdPrefixResolvesToTheOnePendingPlanAndNoneOrSeveralMatchesAreClearErrors() throws Exception {
        List<JsonNode> pending = List.of(json("{\"id\":\"1a2b3c4d-0000\"}"), json("{\"id\":\"1a2bffff-0000\"}"),
                json("{\"id\":\"9999\"}"));
        assertThat(PlanDecisions.resolve(pending, "1a2b3")).isEqualTo("1a2b3c4d-0000");
        assertThat(PlanDecisions.resolve(pending, "9999")).isEqualTo("9999");
        assertThatThrownBy(() -> PlanDecisions.resolve(pending, "1a2b"))
                .hasMessage("id 1a2b matches 2 pending plans: 1a2b3c4d-0000, 1a2bffff-0000");
        assertThatThrownBy(() -> PlanDecisions.resolve(pending, "zz"))
                .hasMessage("no pending plan approval with id zz (/plans lists them)");
    }

    @Test
    void plansListShowsTheShortIdTheSenderAndThePlansFirstLine() throws Exception {
        assertThat(PlanDecisions.lines(Style.PLAIN, List.of(json("{\"id\":\"1a2b3c4d-0000\",\"sender\":\"bob\","
                + "\"payload\":{\"plan\":\"1. CREATE TABLE users\\n2. check it\"}}"))))
                .containsExactly("[bob] plan 1a2b3c4d 1. CREATE TABLE users 2. check it",
                        "decide with /approve-plan <id> [feedback] or /reject-plan <id> [feedback]");
        assertThat(PlanDecisions.lines(Style.PLAIN, List.of())).containsExactly("no plan is waiting for approval");
    }

    @Test
    void protocolEventsReadAsOneLineAboutTheTeammateTheyConcern() throws Exception {
        EventFormatter f = new EventFormatter(Style.PLAIN);
        String base = "{\"id\":\"e1\",\"team\":\"default\",\"agent\":\"lead\",\"seq\":7,\"ts\":\"2025-01-01T00:00:00Z\","
                + "\"type\":\"protocol_updated\",\"data\":";
        assertThat(f.format(json(base + "{\"id\":\"1a2b3c4d-0000\",\"type\":\"plan_approval\",\"sender\":\"bob\","
                + "\"target\":\"lead\",\"status\":\"pending\",\"payload\":{\"plan\":\"write schema.sql\"}}}")))
                .containsExactly("[bob] ? plan 1a2b3c4d submitted for approval: write schema.sql (/approve-plan 1a2b3c4d"
                        + " or /reject-plan 1a2b3c4d <feedback>)");
        assertThat(f.format(json(base + "{\"id\":\"1a2b3c4d-0000\",\"type\":\"plan_approval\",\"sender\":\"bob\","
                + "\"status\":\"rejected\",\"decidedBy\":\"user\",\"feedback\":\"add an index\"}}")))
                .containsExactly("[bob] ✗ plan 1a2b3c4d rejected by user — add an index");
        assertThat(f.format(json(base + "{\"id\":\"77778888-0\",\"type\":\"shutdown\",\"sender\":\"lead\","
                + "\"target\":\"alice\",\"status\":\"expired\"}}")))
                .containsExactly("[alice] ⏻ no answer to shutdown [77778888]: stopped anyway, its tasks released");
        assertThat(f.format(json(base + "{\"id\":\"77778888-0\",\"type\":\"shutdown\",\"target\":\"alice\","
                + "\"status\":\"approved\"}}"))).containsExactly("[alice] ⏻ shutdown accepted [77778888]");
    }
}

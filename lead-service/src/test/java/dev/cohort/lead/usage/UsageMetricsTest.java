package dev.cohort.lead.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The counters' labels and their bound, on a real Micrometer registry (pure logic: no Quarkus boot). */
class UsageMetricsTest {

    private static UsageRow row(String team, String agent, String model) {
        return new UsageRow("e-" + team + agent + model, team, agent, "t1", model, Instant.now(), 100, 20, 30, 0.5, 10,
                true);
    }

    private static double tokens(SimpleMeterRegistry r, String team, String agent, String model, String kind) {
        var c = r.find("cohort.tokens").tags("team", team, "agent", agent, "model", model, "kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    private static double cost(SimpleMeterRegistry r, String team, String agent, String model) {
        var c = r.find("cohort.cost").tags("team", team, "agent", agent, "model", model).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void eachCallAddsItsTokensByKindAndItsCost() {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        UsageMetrics m = new UsageMetrics(r, 10);
        m.count(row("t", "lead", "gpt"));
        m.count(row("t", "lead", "gpt"));
        assertThat(tokens(r, "t", "lead", "gpt", "prompt")).isEqualTo(200);
        assertThat(tokens(r, "t", "lead", "gpt", "completion")).isEqualTo(40);
        assertThat(tokens(r, "t", "lead", "gpt", "cached")).isEqualTo(60);
        assertThat(tokens(r, "t", "lead", "gpt", "cache_write")).isEqualTo(20);
        assertThat(cost(r, "t", "lead", "gpt")).isEqualTo(1.0);
        assertThat(m.seriesCount()).isEqualTo(1);
    }

    @Test
    void beyondMaxSeriesTeamAndAgentCollapseToOtherButTheModelIsKept() {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        UsageMetrics m = new UsageMetrics(r, 2);
        m.count(row("a", "lead", "gpt"));
        m.count(row("b", "lead", "gpt"));
        m.count(row("c", "lead", "gpt"));
        m.count(row("d", "bob", "mini"));
        m.count(row("a", "lead", "gpt")); // a known series keeps its labels
        assertThat(m.seriesCount()).isEqualTo(2);
        assertThat(tokens(r, "a", "lead", "gpt", "prompt")).isEqualTo(200);
        assertThat(tokens(r, "c", "lead", "gpt", "prompt")).isZero();
        assertThat(tokens(r, "other", "other", "gpt", "prompt")).isEqualTo(100);
        assertThat(cost(r, "other", "other", "mini")).isEqualTo(0.5);
        assertThat(r.find("cohort.tokens").counters()).extracting(c -> c.getId().getTag("team"))
                .containsOnly("a", "b", "other");
    }

    @Test
    void aCallWithoutAModelCountsUnderUnknown() {
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        new UsageMetrics(r, 5).count(row("t", "lead", null));
        assertThat(tokens(r, "t", "lead", "unknown", "prompt")).isEqualTo(100);
    }
}

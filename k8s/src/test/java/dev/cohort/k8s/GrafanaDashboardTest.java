package dev.cohort.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard {@code k8s/observability/cohort-dashboard.json}: it parses, has the panels README.md
 * section 9 lists, and every metric its PromQL queries is one Cohort or Strimzi's Kafka Exporter exposes — a list
 * kept here ({@link #EXPOSED}), each Cohort name cross-checked with the Micrometer names in the services' code, so a
 * renamed meter or a typo in a query fails here and not on an empty panel in production.
 */
class GrafanaDashboardTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Path DASHBOARD = Manifest.k8sDir().resolve("observability/cohort-dashboard.json");

    /**
     * Every metric the dashboard may query, with what exposes it. Cohort's are Micrometer meters (dotted names in
     * code; Prometheus adds {@code _total} to counters, {@code _seconds_bucket/_count/_sum/_max} to timers).
     */
    static final Map<String, String> EXPOSED = Map.ofEntries(
            Map.entry("cohort_tokens_total", "lead-service usage ledger (counter cohort.tokens)"),
            Map.entry("cohort_cost_total", "lead-service usage ledger (counter cohort.cost)"),
            Map.entry("cohort_turn_duration_seconds_bucket", "agent-host MicrometerEngineMetrics (timer cohort.turn.duration)"),
            Map.entry("cohort_turn_duration_seconds_count", "agent-host MicrometerEngineMetrics (timer cohort.turn.duration)"),
            Map.entry("cohort_model_calls_total", "agent-host MicrometerEngineMetrics (counter cohort.model.calls)"),
            Map.entry("cohort_tool_call_duration_seconds_bucket",
                    "agent-host MicrometerEngineMetrics (timer cohort.tool.call.duration)"),
            Map.entry("cohort_tool_call_duration_seconds_count",
                    "agent-host MicrometerEngineMetrics (timer cohort.tool.call.duration)"),
            Map.entry("cohort_teammates", "teammate-service TeammateMetrics (gauge cohort.teammates{state})"),
            Map.entry("cohort_teammates_running", "teammate-service TeammateMetrics (gauge cohort.teammates.running)"),
            Map.entry("kafka_consumergroup_lag", "Strimzi Kafka Exporter (spec.kafkaExporter of the Kafka resource)"));

    /** PromQL words that are not metrics: functions, aggregations, modifiers. */
    static final Set<String> PROMQL = Set.of("sum", "avg", "min", "max", "count", "rate", "irate", "increase",
            "histogram_quantile", "by", "without", "ignoring", "on", "group_left", "group_right", "and", "or", "unless",
            "label_values", "topk", "bottomk", "clamp_min", "offset");

    @Test
    void theDashboardHasTheIssuesPanelsAndEveryQueryUsesTheDatasourceVariable() {
        JsonNode d = dashboard();
        assertThat(d.path("uid").asText()).isEqualTo("cohort-overview");
        List<String> titles = new ArrayList<>();
        d.path("panels").forEach(p -> titles.add(p.path("title").asText()));
        assertThat(titles).contains("Tokens per second by team / agent / model",
                "Cost (USD) in the range by team / agent / model", "Turn latency p50 / p95",
                "Model call error rate by outcome", "Tool latency p95 by tool", "Kafka consumer lag per group",
                "Teammates per replica by state");
        Set<Integer> ids = new TreeSet<>();
        d.path("panels").forEach(p -> {
            assertThat(ids.add(p.path("id").asInt())).as("unique panel id %s", p.path("id")).isTrue();
            assertThat(p.path("datasource").path("uid").asText()).as(p.path("title").asText()).isEqualTo("${datasource}");
            assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
            p.path("targets").forEach(t -> assertThat(t.path("expr").asText()).isNotBlank());
        });
        assertThat(exprs(d)).anyMatch(e -> e.contains("histogram_quantile(0.95") && e.contains("cohort_turn_duration"))
                .anyMatch(e -> e.contains("histogram_quantile(0.5") && e.contains("cohort_turn_duration"));
    }

    @Test
    void everyMetricTheDashboardQueriesIsOneCohortOrTheKafkaExporterExposes() {
        Set<String> used = new TreeSet<>();
        for (String e : exprs(dashboard())) {
            used.addAll(metricsIn(e));
        }
        assertThat(used).as("metrics the dashboard queries").isNotEmpty().allSatisfy(
                m -> assertThat(EXPOSED).as("%s is not exposed by Cohort or the Kafka Exporter", m).containsKey(m));
        assertThat(used).contains("cohort_tokens_total", "cohort_cost_total", "cohort_turn_duration_seconds_bucket",
                "cohort_model_calls_total", "cohort_tool_call_duration_seconds_bucket", "kafka_consumergroup_lag",
                "cohort_teammates");
    }

    @Test
    void everyCohortMetricOfTheListHasItsMeterInTheServicesCode() {
        Set<String> meters = meterNamesInCode();
        assertThat(meters).as("meter names found in */src/main/java").contains("cohort.teammates.running");
        for (String m : EXPOSED.keySet()) {
            if (!m.startsWith("cohort_")) {
                continue;
            }
            boolean found = meters.stream().anyMatch(n -> prometheusNames(n).contains(m));
            assertThat(found).as("%s (%s) has no meter in the code", m, EXPOSED.get(m)).isTrue();
        }
    }

    @Test
    void theKafkaExporterIsDeployedWithTheKafkaClusterInEveryOverlay() {
        for (Path o : Manifest.overlays()) {
            var kafka = Manifest.of(o).ofKind("Kafka");
            assertThat(kafka).as("Kafka in %s", o).hasSize(1);
            JsonNode exporter = kafka.get(0).path("spec").path("kafkaExporter");
            assertThat(exporter.isObject()).as("spec.kafkaExporter in %s", o).isTrue();
            assertThat(exporter.path("groupRegex").asText()).isEqualTo(".*");
            assertThat("cohort.events").matches(exporter.path("topicRegex").asText());
        }
    }

    @Test
    void theQueryParserFindsMetricsAndIgnoresFunctionsLabelsAndVariables() {
        assertThat(metricsIn("histogram_quantile(0.95, sum by (le, tool) (rate(x_seconds_bucket{service=~\"$service\"}"
                + "[$__rate_interval])))")).containsExactly("x_seconds_bucket");
        assertThat(metricsIn("sum by (outcome) (rate(a_total{outcome!=\"ok\"}[5m])) / ignoring (outcome) group_left "
                + "sum(rate(b_total[5m]))")).containsExactly("a_total", "b_total");
    }

    // ---- helpers

    static JsonNode dashboard() {
        try {
            return JSON.readTree(Files.readString(DASHBOARD));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> exprs(JsonNode d) {
        List<String> out = new ArrayList<>();
        d.path("panels").forEach(p -> p.path("targets").forEach(t -> out.add(t.path("expr").asText())));
        d.path("templating").path("list").forEach(v -> {
            String q = v.path("query").isObject() ? v.path("query").path("query").asText() : "";
            if (q.startsWith("label_values(")) {
                out.add(q.replaceAll(",\\s*\\w+\\)$", ")"));
            }
        });
        return out;
    }

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern GROUPING = Pattern.compile("\\b(by|without|ignoring|on|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENT = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");

    /** The metric names in a PromQL expression: identifiers outside strings, selectors, ranges, groupings. */
    static Set<String> metricsIn(String expr) {
        String e = STRING.matcher(expr).replaceAll("\"\"");
        e = e.replaceAll("\\{[^}]*\\}", " ").replaceAll("\\[[^]]*\\]", " ").replaceAll("\\$\\w+", " ");
        Matcher g = GROUPING.matcher(e);
        e = g.replaceAll("$1 ");
        Set<String> out = new LinkedHashSet<>();
        Matcher m = IDENT.matcher(e);
        while (m.find()) {
            String id = m.group();
            if (!PROMQL.contains(id) && !id.matches("\\d.*")) {
                out.add(id);
            }
        }
        return out;
    }

    private static final Pattern METER = Pattern.compile("\"(cohort\\.[a-z0-9.]+)\"");

    /** Every {@code "cohort.…"} string literal of the services' main code that names a meter. */
    static Set<String> meterNamesInCode() {
        Set<String> out = new TreeSet<>();
        for (String module : List.of("agent-host", "lead-service", "teammate-service", "scheduler-service",
                "tool-runner-service", "core")) {
            Path src = Manifest.repo().resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    Matcher m = METER.matcher(Files.readString(f));
                    while (m.find()) {
                        out.add(m.group(1));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** The names Prometheus shows for a Micrometer meter, whatever its type. */
    static Set<String> prometheusNames(String meter) {
        String base = meter.replace('.', '_');
        return Set.of(base, base + "_total", base + "_seconds_bucket", base + "_seconds_count", base + "_seconds_sum",
                base + "_seconds_max");
    }
}

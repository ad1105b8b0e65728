package dev.cohort.lead.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.engine.EngineSettings;
import dev.cohort.host.engine.EngineConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The lead's deprecated {@code cohort.lead.max-model-calls-per-turn} / {@code cohort.lead.approval-timeout} stay
 * declared in {@link LeadConfig} and reach the shared engine configuration as its aliases (through the real SmallRye
 * mapping, without booting Quarkus).
 */
class LeadEngineAliasesTest {

    private static SmallRyeConfig config(Map<String, String> props) {
        return new SmallRyeConfigBuilder().withMapping(EngineConfig.class).withMapping(LeadConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(props, "test", 300)).build();
    }

    private static EngineSettings settings(Map<String, String> props) {
        SmallRyeConfig c = config(props);
        return EngineConfig.toSettings(c.getConfigMapping(EngineConfig.class),
                LeadEngineAliases.aliases(c.getConfigMapping(LeadConfig.class)));
    }

    @Test
    void theDeprecatedLeadKeysStillWorkAndTheEngineKeysWinOverThem() {
        Map<String, String> legacy = Map.of("cohort.lead.max-model-calls-per-turn", "12",
                "cohort.lead.approval-timeout", "2m");
        assertThat(settings(legacy).maxModelCallsPerTurn()).isEqualTo(12);
        assertThat(settings(legacy).approvalTimeout()).isEqualTo(Duration.ofMinutes(2));

        Map<String, String> both = new HashMap<>(legacy);
        both.put("cohort.engine.max-model-calls-per-turn", "30");
        both.put("cohort.engine.approval-timeout", "45s");
        assertThat(settings(both).maxModelCallsPerTurn()).isEqualTo(30);
        assertThat(settings(both).approvalTimeout()).isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void anInvalidDeprecatedLeadKeyIsRefusedNamingIt() {
        assertThatThrownBy(() -> settings(Map.of("cohort.lead.max-model-calls-per-turn", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid engine configuration: cohort.lead.max-model-calls-per-turn=1 must be at least 2");
    }

    @Test
    void withoutTheDeprecatedKeysTheLeadHasNoAliases() {
        EngineConfig.DeprecatedAliases a = LeadEngineAliases.aliases(config(Map.of()).getConfigMapping(LeadConfig.class));
        assertThat(a.maxModelCallsPerTurn()).isEmpty();
        assertThat(a.approvalTimeout()).isEmpty();
        assertThat(a.prefix()).isEqualTo("cohort.lead.");
    }
}

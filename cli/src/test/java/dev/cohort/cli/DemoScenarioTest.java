package dev.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.devstack.model.Scenario;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The demo's scenario is valid for the scripted model (unknown keys are refused there) and covers every prompt. */
class DemoScenarioTest {

    @Test
    void theDemoScenarioParsesAndHasARuleForEveryPrompt() throws Exception {
        String json;
        try (InputStream in = DemoCommand.class.getResourceAsStream("demo-scenario.json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Scenario.parse(json);
        for (String prompt : DemoCommand.PROMPTS) {
            String start = prompt.substring(0, Math.min(prompt.length(), 16));
            assertThat(json).as("a rule for %s", prompt).contains("\"^" + start);
        }
    }
}

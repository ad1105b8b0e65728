package dev.cohort.toolrunner.sandbox;

import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.newTeam;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.workspace.Workspaces;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The runner's environment is given secrets (the test JVM's own environment cannot be changed), then {@code env}
 * runs over HTTP: none of them, nor anything else whose name contains KEY, TOKEN, SECRET or PASSWORD, shows.
 */
@QuarkusTest
class ScrubbedEnvironmentTest {
    @Inject
    ToolRunnerConfig config;
    @Inject
    Workspaces workspaces;
    @Inject
    CommandSandbox sandbox;
    @Inject
    WarmSandboxes warm;
    @Inject
    CommandLimits limits;
    @Inject
    TeamSandboxes teams;

    @Test
    void envOverHttpShowsNoSecretOfTheRunnersEnvironment() {
        Map<String, String> parent = new HashMap<>(System.getenv());
        parent.put("OPENAI_API_KEY", "sk-should-never-leak");
        parent.put("COHORT_TOOL_RUNNER_TOKEN", "runner-token-should-never-leak");
        parent.put("COHORT_DB_PASSWORD", "db-password-should-never-leak");
        parent.put("AWS_SECRET_ACCESS_KEY", "aws-should-never-leak");
        parent.put("MY_SERVICE_TOKEN", "tok-should-never-leak");
        parent.put("KAFKA_SASL_JAAS_CONFIG", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"cohort\" password=\"kafka-should-never-leak\";");
        CommandLauncher withSecrets = new CommandLauncher() {
            @Override
            Map<String, String> parentEnvironment() {
                return parent;
            }
        };
        withSecrets.config = config;
        withSecrets.workspaces = workspaces;
        withSecrets.sandbox = sandbox;
        withSecrets.warm = warm;
        withSecrets.limits = limits;
        withSecrets.teams = teams;
        QuarkusMock.installMockForType(withSecrets, CommandLauncher.class);

        String out = bash(newTeam(), "env").output();
        List<String> names = out.lines().filter(l -> l.contains("=")).map(l -> l.substring(0, l.indexOf('='))).toList();
        assertThat(names).isNotEmpty().contains("PATH", "HOME")
                .noneMatch(n -> n.matches("(?i).*(KEY|TOKEN|SECRET|PASSWORD|JAAS).*"));
        assertThat(out).doesNotContain("should-never-leak");
    }
}

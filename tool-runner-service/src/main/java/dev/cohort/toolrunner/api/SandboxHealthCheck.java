package dev.cohort.toolrunner.api;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.sandbox.CommandLimits;
import dev.cohort.toolrunner.sandbox.CommandSandbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Locale;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Shows the sandbox in force in {@code /q/health/ready} ({@code sandbox}: bubblewrap, unshare or none, and what
 * was requested), so {@code cohort up} and operators can see it, and how commands are limited ({@code limits}: cgroups
 * and rlimits, or rlimits only; {@code processes-limit}: how the process limit is enforced, or why it is not). Always
 * up: a runner without the requested sandbox, or with a nonsense limit, does not start at all.
 */
@Readiness
@ApplicationScoped
public class SandboxHealthCheck implements HealthCheck {
    @Inject
    CommandSandbox sandbox;
    @Inject
    CommandLimits limits;
    @Inject
    ToolRunnerConfig config;

    @Override
    public HealthCheckResponse call() {
        if (config.role() == ToolRunnerConfig.Role.CONTROL) {
            return HealthCheckResponse.named("sandbox").up().withData("sandbox", "team sandbox pods (agent-sandbox)")
                    .build();
        }
        return HealthCheckResponse.named("sandbox").up()
                .withData("sandbox", sandbox.level().id())
                .withData("requested", sandbox.requested().name().toLowerCase(Locale.ROOT))
                .withData("limits", limits.mechanism())
                .withData("processes-limit", limits.processesEnforcement())
                .build();
    }
}

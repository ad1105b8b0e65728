package dev.cohort.toolrunner.service;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/** Builds the {@link ProcessRunner.Spec} of a command: scrubbed environment, and the sandbox in force. */
@ApplicationScoped
public class CommandLauncher {
    @Inject
    ToolRunnerConfig config;
    @Inject
    Workspaces workspaces;
    @Inject
    CommandSandbox sandbox;

    private volatile Pattern deny;

    /** The runner's own environment; a seam for tests. */
    Map<String, String> parentEnvironment() {
        return System.getenv();
    }

    public ProcessRunner.Spec spec(ToolContext ctx, String command, Duration timeout) {
        Path home = workspaces.home(ctx.team());
        Pattern d = deny;
        if (d == null) {
            d = Pattern.compile(config.env().denyNamePattern());
            deny = d;
        }
        Map<String, String> env = EnvironmentPolicy.childEnvironment(parentEnvironment(), config.env().allowlist(), d,
                home, ctx.team(), ctx.agent());
        return new ProcessRunner.Spec(config.shell(), command, ctx.cwd(), env, timeout, sandbox.prefix(ctx, home));
    }
}

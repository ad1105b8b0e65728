package dev.cohort.toolrunner.service;

import dev.cohort.toolrunner.config.ToolRunnerConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Builds the {@link ProcessRunner.Spec} of a command: scrubbed environment, and the sandbox when configured. */
@ApplicationScoped
public class CommandLauncher {
    @Inject
    ToolRunnerConfig config;
    @Inject
    Workspaces workspaces;

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
        return new ProcessRunner.Spec(config.shell(), command, ctx.cwd(), env, timeout, sandboxPrefix(ctx, home));
    }

    private List<String> sandboxPrefix(ToolContext ctx, Path home) {
        if (config.sandbox() != dev.cohort.toolrunner.config.ToolRunnerConfig.Sandbox.BUBBLEWRAP) {
            return List.of();
        }
        List<Path> writable = new ArrayList<>();
        writable.add(ctx.root());
        if (ctx.worktree() != null) {
            Path git = ctx.workspace().resolve(".git");
            if (Files.isDirectory(git)) {
                writable.add(git); // a worktree's commits land in the main repository's object store
            }
        }
        writable.add(home);
        return Sandbox.bubblewrap(config.bwrapPath(), workspaces.stateDir(), List.of(), writable, ctx.cwd());
    }
}

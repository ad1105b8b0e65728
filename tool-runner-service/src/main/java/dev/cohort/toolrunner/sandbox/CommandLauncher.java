package dev.cohort.toolrunner.sandbox;

import dev.cohort.core.trace.Tracing;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.EnvironmentPolicy;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.cohort.toolrunner.workspace.Workspaces;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Builds the {@link ProcessRunner.Spec} of a command: scrubbed environment, the sandbox in force (the team's sandbox,
 * {@link TeamSandboxes}, or one for the call) and, inside it right before the shell, the command's rlimits; a
 * sandbox of its own also gets a cgroup of its own where cgroups are used ({@link CommandLimits}).
 */
@ApplicationScoped
public class CommandLauncher {
    @Inject
    public ToolRunnerConfig config;
    @Inject
    public Workspaces workspaces;
    @Inject
    public CommandSandbox sandbox;
    @Inject
    public WarmSandboxes warm;
    @Inject
    public CommandLimits limits;
    @Inject
    public TeamSandboxes teams;

    private volatile Pattern deny;

    /** The runner's own environment; a seam for tests. */
    Map<String, String> parentEnvironment() {
        return System.getenv();
    }

    public ProcessRunner.Spec spec(ToolContext ctx, String command, Duration timeout) {
        return spec(ctx, command, timeout, workspaces.home(ctx.team()));
    }

    private ProcessRunner.Spec spec(ToolContext ctx, String command, Duration timeout, Path home) {
        Pattern d = deny;
        if (d == null) {
            d = Pattern.compile(config.env().denyNamePattern());
            deny = d;
        }
        Map<String, String> env = EnvironmentPolicy.childEnvironment(parentEnvironment(), config.env().allowlist(), d,
                home, ctx.team(), ctx.agent());
        // the W3C context of the call's span, for tools in the command that trace (none when tracing is off)
        String traceparent = Tracing.traceparent();
        if (traceparent != null) {
            env = new HashMap<>(env);
            env.put("TRACEPARENT", traceparent);
        }
        if (teams.enabled()) {
            // the team's sandbox, entered per command; inside it, the rlimits step before the shell
            WarmSandboxes.Key key = sandbox.warmKey(ctx, home);
            return new ProcessRunner.Spec(config.shell(), command, ctx.cwd(), env, timeout, limits.prefix(), null,
                    null, () -> teams.lease(key));
        }
        return new ProcessRunner.Spec(config.shell(), command, ctx.cwd(), env, timeout,
                withLimits(sandbox.prefix(ctx, home)), null, limits.cgroups());
    }

    /** {@code prefix} followed by the rlimits step: the last thing run inside the sandbox before the shell. */
    private List<String> withLimits(List<String> prefix) {
        List<String> step = limits.prefix();
        if (step.isEmpty()) {
            return prefix;
        }
        List<String> all = new ArrayList<>(prefix.size() + step.size());
        all.addAll(prefix);
        all.addAll(step);
        return all;
    }

    /**
     * The spec of a foreground command that may start in a warm sandbox ({@link WarmSandboxes}; used only without
     * stdin and separate stderr, else it starts cold like {@link #spec}).
     */
    public ProcessRunner.Spec warmSpec(ToolContext ctx, String command, Duration timeout) {
        Path home = workspaces.home(ctx.team());
        ProcessRunner.Spec s = spec(ctx, command, timeout, home);
        // a warm sandbox's environment was fixed before this call: a traced call starts cold to get its TRACEPARENT
        if (!warm.enabled() || s.env().containsKey("TRACEPARENT")) {
            return s;
        }
        if (s.team() != null) {
            // entries into the team's sandbox, each serving call after call: the pool's key names the sandbox's
            // holder, so a sandbox started again gets a pool of its own
            Path root = ctx.root();
            List<Path> binds = sandbox.warmKey(ctx, home).binds();
            return new ProcessRunner.Spec(s.shell(), s.command(), s.cwd(), s.env(), s.timeout(), s.sandboxPrefix(), null,
                    null, s.team(), lease -> warm.takeIfRoom(new WarmSandboxes.Key(ctx.team(),
                            withLimits(lease.prefix(root)), root, binds, true)));
        }
        WarmSandboxes.Key key = warmKey(ctx, home);
        return new ProcessRunner.Spec(s.shell(), s.command(), s.cwd(), s.env(), s.timeout(), s.sandboxPrefix(),
                () -> warm.take(key), s.cgroups());
    }

    /**
     * The pool of {@code ctx}'s warm sandboxes: the sandbox's warm key with the rlimits step, so a warm sandbox's stub
     * (and the command it runs) has exactly a cold start's limits; its cgroup is its own, made when it starts.
     */
    public WarmSandboxes.Key warmKey(ToolContext ctx, Path home) {
        WarmSandboxes.Key k = sandbox.warmKey(ctx, home);
        return new WarmSandboxes.Key(k.team(), withLimits(k.command()), k.directory(), k.binds());
    }
}

package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.toolrunner.ToolDescriptor;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.trace.Tracing;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.CallPhases;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.config.ToolRunnerConfig;
import dev.cohort.toolrunner.process.CommandPolicy;
import dev.cohort.toolrunner.process.OutputCapture;
import dev.cohort.toolrunner.process.ProcessRunner;
import dev.cohort.toolrunner.sandbox.CommandLauncher;
import dev.cohort.toolrunner.sandbox.CommandLimits;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.OutputStore;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * {@code bash {command, timeout_ms?, run_in_background?, stdin?}}: the command policy first, then {@code bash -c} in
 * the cwd with stdin closed, a scrubbed environment, a timeout that kills the whole process group, the exit code,
 * stdout and stderr in arrival order, and a head+tail output cap with the whole output behind {@code outputRef}. Slow
 * commands (or {@code run_in_background=true}) become background jobs.
 *
 * <p>{@code stdin} is internal (the hosts' command hooks send the hook event JSON there; the model's {@code bash}
 * schema does not offer it): the text is the command's stdin, the command always runs in the foreground, and stderr
 * is returned apart in {@code stderr} ({@code output} is then stdout only), so "exit 2 = blocked, stderr is the
 * reason" can be told apart from what the command printed.
 */
@ApplicationScoped
public class BashTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "bash";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Run one shell command (bash) in the workspace and return its output and exit code. Commands run "
                    + "non-interactively (stdin is empty), with a timeout; long output keeps head and tail.",
            ToolSchemas.object()
                    .addProperty("command", ToolSchemas.string("the command line, e.g. 'ls -la' or 'mvn -q test'"))
                    .addProperty("run_in_background", ToolSchemas.bool("run it as a background job: the call returns its"
                            + " job id at once and a background_done message arrives when it ends (check_background,"
                            + " cancel_background)"))
                    .required("command").build());

    public BashTool() {
        super(SPEC, true, EVERY_AGENT, ToolDescriptor.Subject.command("command"));
    }

    @Inject
    Tracing tracing;

    @Inject
    ToolRunnerConfig config;
    @Inject
    CommandLauncher launcher;
    @Inject
    OutputStore outputs;
    @Inject
    BackgroundJobs background;
    @Inject
    CommandLimits limits;

    /** The internal argument: text for the command's stdin, with stderr returned apart. */
    public static final String STDIN = "stdin";

    private List<List<String>> slow;

    @PostConstruct
    void init() {
        slow = config.background().slowCommands().stream()
                .map(s -> Arrays.stream(s.strip().split("\\s+")).toList()).toList();
    }

    @Override
    public Set<String> arguments() {
        return Set.of("command", "timeout_ms", "run_in_background", STDIN);
    }

    @Override
    public boolean runsUnderReadOnlyMounts() {
        return true; // a read-only call's command sees the workspace, worktrees and HOME read-only
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        String command = args.string("command");
        Long timeoutMs = args.optLong("timeout_ms");
        Boolean bgArg = args.optBool("run_in_background");
        String stdin = args.optString(STDIN, null);
        if (stdin != null && Boolean.TRUE.equals(bgArg)) {
            throw ToolError.badArgument("stdin and run_in_background=true do not go together: a command with stdin runs in "
                    + "the foreground");
        }
        CommandPolicy.Decision d = CommandPolicy.decide(command, new CommandPolicy.Context(ctx.root(), ctx.cwd()));
        if (!d.allowed()) {
            throw new ToolError(d.rule(), "command refused by the tool runner's safety policy: " + d.reason());
        }
        CallPhases.mark(CallPhases.POLICY);
        boolean bg = stdin == null && (bgArg != null ? bgArg : CommandPolicy.isSlow(command, slow));
        Duration max = bg ? config.background().timeout() : config.bash().maxTimeout();
        if (timeoutMs != null && (timeoutMs < 1 || timeoutMs > max.toMillis())) {
            throw ToolError.badArgument("timeout_ms must be between 1 and " + max.toMillis()
                    + (bg ? "" : "; run longer work with run_in_background=true"));
        }
        if (bg) {
            Duration t = timeoutMs != null ? Duration.ofMillis(timeoutMs) : config.background().timeout();
            String id = background.start(ctx, command, t);
            String ref = OutputStore.ref(id);
            String why = bgArg == null ? " (it looks like a slow command; pass run_in_background=false to wait for it)" : "";
            return new ToolCallResult("Started background job " + id + why + ". You will get a background_done "
                    + "message when it finishes; its output so far: read_file path=\"" + ref + "\"", null, null, null,
                    ref, 0);
        }
        Duration timeout = timeoutMs != null ? Duration.ofMillis(timeoutMs) : config.bash().defaultTimeout();
        String id = OutputStore.newId();
        String ref = OutputStore.ref(id);
        long stored = limits.values().outputSize();
        OutputCapture capture = new OutputCapture(config.bash().outputCap(), outputs.file(ctx.team(), id), false)
                .storeAtMost(stored);
        String errId = id + "_stderr";
        OutputCapture stderr = stdin == null ? null
                : new OutputCapture(config.bash().outputCap(), outputs.file(ctx.team(), errId), false).storeAtMost(stored);
        Path stdinFile = stdin == null ? null : outputs.file(ctx.team(), id + "_stdin");
        ProcessRunner.Outcome o;
        try {
            if (stdinFile != null) {
                Files.createDirectories(stdinFile.getParent());
                Files.writeString(stdinFile, stdin, StandardCharsets.UTF_8);
            }
            // a command with stdin (hooks) starts cold; the others may take a warm sandbox
            // the process's span, whose context the command gets as TRACEPARENT
            Span span = tracing.start("process " + config.shell(),
                    SpanKind.INTERNAL).setAttribute("cohort.team", ctx.team())
                    .setAttribute("cohort.agent", ctx.agent()).setAttribute("gen_ai.tool.call.id", ctx.callId());
            try (Scope ignored = span.makeCurrent()) {
                ProcessRunner.Spec spec = stdin == null ? launcher.warmSpec(ctx, command, timeout)
                        : launcher.spec(ctx, command, timeout);
                o = ProcessRunner.run(spec, capture, stderr, stdinFile, null);
                if (o.exitCode() != null) {
                    span.setAttribute("process.exit.code", (long) o.exitCode());
                }
                if (o.timedOut() || o.exitCode() == null || o.exitCode() != 0) {
                    span.setStatus(StatusCode.ERROR, o.timedOut() ? "timed out" : "exit code");
                }
            } finally {
                span.end();
            }
        } finally {
            if (stdinFile != null) {
                Files.deleteIfExists(stdinFile);
            }
        }
        boolean overLimit = capture.limitReached() || (stderr != null && stderr.limitReached());
        String error = o.timedOut() ? "timed out after " + timeout.toMillis()
                + " ms; the command's whole process group was killed (rule: timeout). For long work use run_in_background=true"
                : overLimit ? CommandLimits.outputLimitError(stored) : null;
        // killed for its output: its exit status is the kill's, not the command's
        Integer exitCode = overLimit ? null : o.exitCode();
        return new ToolCallResult(capture.text(ref), error, exitCode, capture.truncated() ? Boolean.TRUE : null,
                capture.spilled() ? ref : null, o.durationMs(), stderr == null ? null : stderr.text(OutputStore.ref(errId)));
    }
}

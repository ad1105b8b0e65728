package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.workspace.ToolContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;

/**
 * {@code check_background {job_id}}: the state of one background job of the calling agent: status,
 * exit code, duration, error, first output and where the whole output is. Another agent's or team's job is answered
 * exactly like an unknown id, so nothing about it leaks.
 */
@ApplicationScoped
public class CheckBackgroundTool implements Tool {
    @Inject
    BackgroundJobs background;

    @Override
    public String name() {
        return "check_background";
    }

    @Override
    public Set<String> arguments() {
        return Set.of("job_id");
    }

    @Override
    public boolean isMutating() {
        return false;
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        BackgroundJob job = background.findOwn(ctx, args.string("job_id"));
        return ToolCallResult.ok(BackgroundJobs.describe(job), 0);
    }
}

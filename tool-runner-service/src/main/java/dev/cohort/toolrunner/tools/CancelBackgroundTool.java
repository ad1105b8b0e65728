package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.Tool;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ToolContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;

/**
 * {@code cancel_background {job_id}}: kills a running background job of the calling agent and reports
 * its final state; a job that already ended is left as it is. Another agent's or team's job is answered like an
 * unknown id.
 */
@ApplicationScoped
public class CancelBackgroundTool implements Tool {
    @Inject
    BackgroundJobs background;

    @Override
    public String name() {
        return "cancel_background";
    }

    @Override
    public Set<String> arguments() {
        return Set.of("job_id");
    }

    @Override
    public boolean isMutating() {
        return true;
    }

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        BackgroundJob job = background.findOwn(ctx, args.string("job_id"));
        if (!"running".equals(job.status())) {
            return ToolCallResult.ok("Nothing to cancel: " + BackgroundJobs.describe(job), 0);
        }
        BackgroundJob after = background.cancel(job.id()).orElseThrow();
        if ("running".equals(after.status())) {
            throw new ToolError("background-cancel", "job " + job.id() + " is still running: it runs on another"
                    + " tool-runner instance, or its process group did not die; check_background it again later");
        }
        return ToolCallResult.ok(("cancelled".equals(after.status()) ? "Cancelled. " : "It ended before the cancel: ")
                + BackgroundJobs.describe(after), 0);
    }
}

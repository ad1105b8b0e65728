package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.ToolError;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * {@code cancel_background {job_id}}: kills a running background job of the calling agent and reports
 * its final state; a job that already ended is left as it is. Another agent's or team's job is answered like an
 * unknown id.
 */
@ApplicationScoped
public class CancelBackgroundTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "cancel_background";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Cancel a running background job you started (its whole process group is "
                    + "killed) and get its final state. A job that already ended is left as it is.",
            ToolSchemas.object().addProperty("job_id", ToolSchemas.string("the job id, e.g. 'bg_1a2b3c4d5e6f7a8b'"))
                    .required("job_id").build());

    public CancelBackgroundTool() {
        super(SPEC, true);
    }

    @Inject
    BackgroundJobs background;

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

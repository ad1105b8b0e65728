package dev.cohort.toolrunner.tools;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.toolrunner.background.BackgroundJobs;
import dev.cohort.toolrunner.calls.Args;
import dev.cohort.toolrunner.calls.DeclaredTool;
import dev.cohort.toolrunner.workspace.ToolContext;
import dev.langchain4j.agent.tool.ToolSpecification;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * {@code check_background {job_id}}: the state of one background job of the calling agent: status,
 * exit code, duration, error, first output and where the whole output is. Another agent's or team's job is answered
 * exactly like an unknown id, so nothing about it leaks.
 */
@ApplicationScoped
public class CheckBackgroundTool extends DeclaredTool {
    /** The name the model calls it by. */
    public static final String NAME = "check_background";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Check a background job you started: status (running, completed, failed, "
                    + "timed_out, cancelled), exit code, duration, the first output, and where the whole output is.",
            ToolSchemas.object().addProperty("job_id", ToolSchemas.string("the job id, e.g. 'bg_1a2b3c4d5e6f7a8b'"))
                    .required("job_id").build());

    public CheckBackgroundTool() {
        super(SPEC, false);
    }

    @Inject
    BackgroundJobs background;

    @Override
    public ToolCallResult execute(ToolContext ctx, Args args) throws Exception {
        BackgroundJob job = background.findOwn(ctx, args.string("job_id"));
        return ToolCallResult.ok(BackgroundJobs.describe(job), 0);
    }
}

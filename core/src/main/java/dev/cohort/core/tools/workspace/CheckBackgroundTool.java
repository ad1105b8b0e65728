package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/**
 * {@code check_background}: the state of a background job the calling agent started. The tool runner
 * checks ownership against the host's identity, never against arguments. Read-only. Runs in the tool runner.
 */
public final class CheckBackgroundTool extends WorkspaceTool {
    public static final String NAME = "check_background";

    public CheckBackgroundTool() {
        super(ToolSchemas.spec(NAME, "Check a background job you started: status (running, completed, failed, "
                        + "timed_out, cancelled), exit code, duration, the first output, and where the whole output is.",
                ToolSchemas.object().addProperty("job_id", ToolSchemas.string("the job id, e.g. 'bg_1a2b3c4d5e6f7a8b'"))
                        .required("job_id").build()), false);
    }
}

package dev.cohort.core.tools.workspace;

import dev.cohort.core.tools.ToolSchemas;

/**
 * {@code cancel_background}: kills a running background job the calling agent started (its whole
 * process group) and reports the final state. Only the agent's own jobs: the tool runner checks ownership against the
 * host's identity. Mutating. Runs in the tool runner.
 */
public final class CancelBackgroundTool extends WorkspaceTool {
    public static final String NAME = "cancel_background";

    public CancelBackgroundTool() {
        super(ToolSchemas.spec(NAME, "Cancel a running background job you started (its whole process group is "
                        + "killed) and get its final state. A job that already ended is left as it is.",
                ToolSchemas.object().addProperty("job_id", ToolSchemas.string("the job id, e.g. 'bg_1a2b3c4d5e6f7a8b'"))
                        .required("job_id").build()), true);
    }
}

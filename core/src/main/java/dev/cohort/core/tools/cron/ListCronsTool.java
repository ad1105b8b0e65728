package dev.cohort.core.tools.cron;

import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolFailure;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.List;
import java.util.stream.Collectors;

/** {@code list_crons}: the caller's team's jobs, one line each. */
public final class ListCronsTool extends SpecifiedTool {

    public static final String NAME = "list_crons";
    /** What the model sees when there is nothing (seed: "no cron jobs; use schedule_cron to add"). */
    public static final String EMPTY = "No cron jobs. Use schedule_cron to add one.";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME, "List all registered cron jobs of your team.",
            ToolSchemas.object().build());

    private final SchedulerClient client;

    public ListCronsTool(SchedulerClient client) {
        super(SPEC, false, LEAD_ONLY);
        this.client = client;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        List<CronJobInfo> jobs;
        try {
            jobs = CronTools.call("list cron jobs", () -> client.list(ctx.team()));
        } catch (ToolFailure f) {
            return f.toResult();
        }
        if (jobs.isEmpty()) {
            return ToolResult.ok(EMPTY);
        }
        return ToolResult.ok(jobs.stream().map(CronTools::line).collect(Collectors.joining("\n")));
    }
}

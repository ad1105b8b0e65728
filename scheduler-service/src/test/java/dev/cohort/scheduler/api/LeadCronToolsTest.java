package dev.cohort.scheduler.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.cron.CronTools;
import dev.cohort.core.tools.cron.ListCronsTool;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.scheduler.support.LeadServiceStub;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The seed's "try these prompts" for the cron scheduler as the lead's tool calls against the running scheduler (the
 * model's part of the script needs the engine's loop): schedule every 10 minutes (the shortest interval of a job an
 * agent schedules), list, cancel and verify with list.
 */
@QuarkusTest
class LeadCronToolsTest {

    @TestHTTPResource("/")
    URL base;

    @Test
    void scheduleListCancelAndVerifyThroughTheLeadsTools() throws Exception {
        ToolRegistry tools = ToolRegistry.of(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN),
                Duration.ofSeconds(30))));
        ToolContext lead = IdentityContext.lead("tools-s14");

        ToolResult scheduled = run(tools, lead, "schedule_cron", "{\"cron\":\"*/10 * * * *\","
                + "\"prompt\":\"print the current date and time\",\"recurring\":true,\"durable\":true}");
        Matcher m = Pattern.compile("Scheduled (cron_[a-z0-9]{12}): '\\*/10 \\* \\* \\* \\*' → print the current date and time"
                + " \\[recurring, durable, UTC\\]; next firing (\\S+)").matcher(scheduled.content());
        assertThat(m.matches()).as(scheduled.content()).isTrue();
        String id = m.group(1);

        assertThat(run(tools, lead, "list_crons", "{}").content())
                .isEqualTo("  " + id + ": '*/10 * * * *' → print the current date and time [recurring, durable] next "
                        + m.group(2) + " (UTC)");

        assertThat(run(tools, lead, "cancel_cron", "{\"job_id\":\"" + id + "\"}")).isEqualTo(ToolResult.ok("Cancelled " + id));
        assertThat(run(tools, lead, "list_crons", "{}")).isEqualTo(ToolResult.ok(ListCronsTool.EMPTY));
    }

    @Test
    void theSchedulersRefusalsReachTheModelAsErrors() throws Exception {
        ToolRegistry tools = ToolRegistry.of(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN),
                Duration.ofSeconds(30))));

        assertThat(run(tools, IdentityContext.lead("tools-errors"), "schedule_cron", "{\"cron\":\"0 0 * * 8\",\"prompt\":\"p\"}"))
                .isEqualTo(new ToolResult("Error: day-of-week: 8 is outside 0-7", true, "scheduler:invalid-cron"));
        assertThat(run(tools, IdentityContext.lead("ghost-team"), "schedule_cron", "{\"cron\":\"@daily\",\"prompt\":\"p\"}"))
                .isEqualTo(new ToolResult("Error: team 'ghost-team' does not exist (create it on lead-service first)", true,
                        "scheduler:unknown-team"));
        assertThat(run(tools, IdentityContext.lead("tools-errors"), "cancel_cron", "{\"job_id\":\"cron_missing\"}").rule())
                .isEqualTo("not-found");
    }

    @Test
    void theCapsOnJobsTheModelCreatesReachTheModelAsErrorsNamingTheirKeys() throws Exception {
        ToolRegistry tools = ToolRegistry.of(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN),
                Duration.ofSeconds(30))));
        ToolContext lead = IdentityContext.lead("tools-caps");

        assertThat(run(tools, lead, "schedule_cron", "{\"cron\":\"* * * * *\",\"prompt\":\"poll\"}"))
                .isEqualTo(new ToolResult("Error: cron '* * * * *' fires every 1 minute; the minimum interval of a job an"
                        + " agent schedules is 10 minutes (cohort.scheduler.model-jobs.min-interval); schedule it less often,"
                        + " or a person can create it (cohort cron add)", true, "scheduler:invalid-cron"));
        // the test profile sets cohort.scheduler.model-jobs.max-per-team=3
        for (int i = 0; i < 3; i++) {
            assertThat(run(tools, lead, "schedule_cron", "{\"cron\":\"@hourly\",\"prompt\":\"job " + i + "\"}").error())
                    .isFalse();
        }
        assertThat(run(tools, lead, "schedule_cron", "{\"cron\":\"@hourly\",\"prompt\":\"one more\"}"))
                .isEqualTo(new ToolResult("Error: team 'tools-caps' already has 3 cron jobs scheduled by its agents, the"
                        + " limit (cohort.scheduler.model-jobs.max-per-team); cancel one first, or a person can create the"
                        + " job (cohort cron add)", true, "scheduler:limit-exceeded"));
        assertThat(list(tools, lead)).hasSize(3);
    }

    @Test
    void aRepeatedScheduleCronGetsTheFirstJobAndMakesNoSecond() throws Exception {
        ToolRegistry tools = ToolRegistry.of(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN),
                Duration.ofSeconds(30))));
        ToolContext lead = IdentityContext.lead("tools-idem");
        ToolCall schedule = call("call_1", "schedule_cron", "{\"cron\":\"@daily\",\"prompt\":\"daily report\"}");

        ToolResult first = tools.find("schedule_cron").orElseThrow().execute(schedule, lead);
        ToolResult repeat = tools.find("schedule_cron").orElseThrow().execute(schedule, lead); // the resumed turn's repeat

        assertThat(first.error()).as(first.content()).isFalse();
        assertThat(repeat).isEqualTo(first);
        assertThat(list(tools, lead)).hasSize(1);
    }

    @Test
    void aScheduleCronCallIdReusedWithOtherArgumentsIsAModelVisibleErrorAndSchedulesNothing() throws Exception {
        ToolRegistry tools = ToolRegistry.of(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN),
                Duration.ofSeconds(30))));
        ToolContext lead = IdentityContext.lead("tools-idem-reuse");
        tools.find("schedule_cron").orElseThrow().execute(call("call_1", "schedule_cron",
                "{\"cron\":\"@daily\",\"prompt\":\"daily report\"}"), lead);

        ToolResult reused = tools.find("schedule_cron").orElseThrow().execute(call("call_1", "schedule_cron",
                "{\"cron\":\"@hourly\",\"prompt\":\"hourly report\"}"), lead);

        assertThat(reused).isEqualTo(new ToolResult("Error: call id 'call_1' was already used by tools-idem-reuse/lead for a"
                + " different call; this schedule_cron call was not run. A call id names exactly one call: issue this call"
                + " again as a new call", true, EffectKey.REUSED_RULE));
        assertThat(list(tools, lead)).singleElement().satisfies(line -> assertThat(line).contains("daily report"));
    }

    @Test
    void aRepeatedCancelCronIsAnsweredCancelledAgainAndAReusedIdIsRefused() throws Exception {
        ToolRegistry tools = ToolRegistry.of(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN),
                Duration.ofSeconds(30))));
        ToolContext lead = IdentityContext.lead("tools-idem-cancel");
        String id = jobId(run(tools, lead, "schedule_cron", "{\"cron\":\"@daily\",\"prompt\":\"a\"}"));
        String other = jobId(run(tools, lead, "schedule_cron", "{\"cron\":\"@weekly\",\"prompt\":\"b\"}"));
        ToolCall cancel = call("call_9", "cancel_cron", "{\"job_id\":\"" + id + "\"}");

        ToolResult first = tools.find("cancel_cron").orElseThrow().execute(cancel, lead);
        ToolResult repeat = tools.find("cancel_cron").orElseThrow().execute(cancel, lead);
        ToolResult reused = tools.find("cancel_cron").orElseThrow().execute(call("call_9", "cancel_cron",
                "{\"job_id\":\"" + other + "\"}"), lead);

        assertThat(first).isEqualTo(ToolResult.ok("Cancelled " + id));
        assertThat(repeat).isEqualTo(first);
        assertThat(reused.rule()).isEqualTo(EffectKey.REUSED_RULE);
        assertThat(list(tools, lead)).singleElement().satisfies(line -> assertThat(line).contains(other));
    }

    private static String jobId(ToolResult scheduled) {
        Matcher m = Pattern.compile("Scheduled (cron_[a-z0-9]{12}):.*", Pattern.DOTALL).matcher(scheduled.content());
        assertThat(m.matches()).as(scheduled.content()).isTrue();
        return m.group(1);
    }

    private static List<String> list(ToolRegistry tools, ToolContext ctx) {
        String out = run(tools, ctx, "list_crons", "{}").content();
        return out.equals(ListCronsTool.EMPTY) ? List.of() : out.lines().toList();
    }

    private static ToolCall call(String id, String name, String args) {
        return new ToolCall(id, name, (ObjectNode) Json.MAPPER.valueToTree(parse(args)));
    }

    private static final AtomicInteger CALL_IDS = new AtomicInteger();

    /** A new call, with a new call id. */
    private static ToolResult run(ToolRegistry tools, ToolContext ctx, String name, String args) {
        Tool tool = tools.find(name).orElseThrow();
        return tool.execute(call("call-" + name + "-" + CALL_IDS.incrementAndGet(), name, args), ctx);
    }

    private static Object parse(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

}

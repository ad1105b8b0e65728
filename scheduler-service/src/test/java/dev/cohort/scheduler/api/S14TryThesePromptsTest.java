package dev.cohort.scheduler.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentEngine;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.llm.GatewayModelClient;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.llm.LlmSettings;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.Topics;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.cron.CronTools;
import dev.cohort.core.tools.cron.ListCronsTool;
import dev.cohort.core.tools.cron.SchedulerClient;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.workspace.WorkspaceToolsFixture;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.cohort.core.tools.workspace.WorkspaceToolExecutor;
import dev.cohort.devstack.model.ScriptedModelServer;
import dev.cohort.scheduler.support.KafkaTopics;
import dev.cohort.scheduler.support.LeadServiceStub;
import dev.cohort.scheduler.support.TestClock;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The seed's "try these prompts" for the cron scheduler, end to end through the engine's loop, the lead's cron
 * tools, this running service and Kafka, with the scripted model: schedule a job every 10 minutes (the seed's 2
 * minutes is below the shortest interval of a job an agent schedules) and a person approves it; it fires at the next
 * tenth minute and the lead runs {@code bash date} with nobody watching; list the jobs; cancel and verify with
 * {@code list_crons}.
 * The lead's host (lead-service) is played by the test: it takes the fired prompt from {@code cohort.prompts} and runs
 * the turn as {@code [cron] <prompt>}, unattended.
 */
@QuarkusTest
class S14TryThesePromptsTest {

    private static final String TEAM = "s14-team";
    /** The team of the refusals: its job list must stay empty whatever the other test schedules. */
    private static final String TEAM2 = "cron-unattended";

    @TestHTTPResource("/")
    URL base;
    @Inject
    TestClock clock;

    private ScriptedModelServer model;
    private Path workspace;

    @BeforeEach
    void start() throws Exception {
        model = ScriptedModelServer.start(0);
        workspace = Files.createTempDirectory("s14-");
    }

    @AfterEach
    void stop() {
        clock.reset();
        model.close();
    }

    @Test
    void scheduleEveryTenMinutesWatchItFireThenListCancelAndVerify() throws Exception {
        List<ApprovalGateway.Request> asked = new CopyOnWriteArrayList<>();
        AgentSession lead = lead(r -> {
            asked.add(r);
            return ApprovalGateway.Decision.approve(); // the person at the CLI says yes
        });

        // 1. "Schedule a job that prints the current date and time every 10 minutes."
        model.load("""
                {"rules":[
                 {"match":{"lastRole":"user","lastUserMessage":"every 10 minutes"},"reply":{"toolCalls":[{"id":"s1",
                   "name":"schedule_cron","arguments":{"cron":"*/10 * * * *","prompt":"Print the current date and time",
                   "recurring":true,"durable":true}}]}},
                 {"match":{"lastRole":"tool","lastMessage":"^Scheduled"},"reply":{"text":"{{lastMessage}}"}}]}""");
        TurnResult scheduled = lead.run("Schedule a job that prints the current date and time every 10 minutes");

        assertThat(scheduled.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(asked).singleElement().satisfies(r -> assertThat(List.of(r.tool(), r.reason())).containsExactly(
                "schedule_cron", "a new recurring cron job ('*/10 * * * *' → Print the current date and time) that would"
                        + " run prompts later with nobody watching (a person approves each job the model schedules;"
                        + " cohort.lead.model-cron-jobs=allow lifts this)"));
        Matcher m = Pattern.compile("Scheduled (cron_[a-z0-9]{12}): '\\*/10 \\* \\* \\* \\*' → Print the current date and time"
                + " \\[recurring, durable, UTC\\]; next firing (\\S+)").matcher(scheduled.text());
        assertThat(m.matches()).as(scheduled.text()).isTrue();
        String id = m.group(1);
        Instant due = Instant.parse(m.group(2));
        assertThat(due.getEpochSecond() % 600).as("a tenth minute").isZero();
        assertThat(model.requests().get(0).body().path("tools").findValuesAsText("name"))
                .contains("schedule_cron", "list_crons", "cancel_cron");

        // 2. At the even minute the job fires; the lead's host runs the turn "[cron] <prompt>" with nobody watching
        clock.runFrom(due.minusMillis(300));
        ConsumerRecord<String, String> fired = await().atMost(Duration.ofSeconds(60)).until(
                () -> KafkaTopics.readAll(Topics.PROMPTS).stream().filter(r -> r.value().contains(id)).toList(),
                r -> !r.isEmpty()).get(0);
        PromptRecord prompt = PromptRecord.fromRecord(fired.key(), fired.value());
        model.load("""
                {"rules":[
                 {"match":{"lastRole":"user","lastUserMessage":"^\\\\[cron\\\\] Print the current date and time$"},
                  "reply":{"toolCalls":[{"id":"d1","name":"bash","arguments":{"command":"date -u +%Y-%m-%dT%H:%MZ"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"It is {{lastMessage}}"}}]}""");
        TurnResult cronTurn = lead.run("[cron] " + prompt.text(), prompt.source(), true);

        assertThat(cronTurn.reason()).isEqualTo(StopReason.COMPLETED);
        assertThat(cronTurn.text()).matches("It is \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ\\s*");

        // 3. "List all cron jobs." The scheduler advances the job in the transaction it commits once Kafka acknowledged
        //    the firing, so the prompt can be read before that: the advance is awaited before the lead lists the jobs
        await().atMost(Duration.ofSeconds(60)).until(() -> given().header("Authorization", "Bearer " + LeadServiceStub.TOKEN)
                .get("/api/v1/teams/{team}/crons/{id}", TEAM, id).jsonPath().getInt("fireCount") == 1);
        model.load("""
                {"rules":[
                 {"match":{"lastRole":"user","lastUserMessage":"^List all cron jobs"},"reply":{"toolCalls":[{"id":"l1",
                   "name":"list_crons","arguments":{}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"{{lastMessage}}"}}]}""");
        TurnResult listed = lead.run("List all cron jobs");

        assertThat(listed.text()).isEqualTo("  " + id + ": '*/10 * * * *' → Print the current date and time [recurring, durable] next "
                + due.plus(Duration.ofMinutes(10)) + " (UTC)");

        // 4. "Cancel the recurring job and verify with list_crons." (the scripted model knows the id from the list)
        model.load("""
                {"rules":[
                 {"match":{"lastRole":"user","lastUserMessage":"^Cancel the recurring job"},"reply":{"toolCalls":[{"id":"c1",
                   "name":"cancel_cron","arguments":{"job_id":"%s"}}]}},
                 {"match":{"lastRole":"tool","lastMessage":"^Cancelled"},"reply":{"toolCalls":[{"id":"l2","name":"list_crons",
                   "arguments":{}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"Verified: {{lastMessage}}"}}]}""".formatted(id));
        TurnResult cancelled = lead.run("Cancel the recurring job and verify with list_crons");

        assertThat(cancelled.text()).isEqualTo("Verified: " + ListCronsTool.EMPTY);
        assertThat(cancelled.modelCalls()).isEqualTo(3);
        assertThat(given().header("Authorization", "Bearer " + LeadServiceStub.TOKEN).get("/api/v1/teams/{team}/crons", TEAM)
                .jsonPath().getList("id")).isEmpty();
    }

    @Test
    void aCronFiredTurnCannotScheduleMoreJobsAndAPersonsNoReachesTheModel() throws Exception {
        List<ApprovalGateway.Request> asked = new CopyOnWriteArrayList<>();
        AgentSession lead = lead(r -> {
            asked.add(r);
            return ApprovalGateway.Decision.deny("not now");
        }, TEAM2);
        model.load("""
                {"rules":[
                 {"match":{"lastRole":"user"},"reply":{"toolCalls":[{"id":"again","name":"schedule_cron",
                   "arguments":{"cron":"0 * * * *","prompt":"do it again"}}]}},
                 {"match":{"lastRole":"tool"},"reply":{"text":"{{lastMessage}}"}}]}""");

        // a turn the clock started: nobody can approve, so the job is refused without asking anyone
        TurnResult fired = lead.run("[cron] keep going", "cron", true);
        assertThat(fired.text()).isEqualTo("Error: permission denied by rule 'model-cron-job': a new recurring cron job"
                + " ('0 * * * *' → do it again) that would run prompts later with nobody watching (a person approves each"
                + " job the model schedules; cohort.lead.model-cron-jobs=allow lifts this) needs approval, and nobody can"
                + " approve it in an unattended (scheduled) turn");
        assertThat(asked).isEmpty();

        // a person watching says no
        TurnResult refused = lead.run("schedule it hourly");
        assertThat(refused.text()).startsWith("Error: permission denied: a new recurring cron job").endsWith(
                " needed approval and it was refused (not now)");
        assertThat(asked).hasSize(1);
        assertThat(given().header("Authorization", "Bearer " + LeadServiceStub.TOKEN).get("/api/v1/teams/{team}/crons", TEAM2)
                .jsonPath().getList("id")).isEmpty();
    }

    /** The lead of this test's team: bash in a small workspace and the cron tools, approvals by {@code approvals}. */
    private AgentSession lead(ApprovalGateway approvals) throws Exception {
        return lead(approvals, TEAM);
    }

    private AgentSession lead(ApprovalGateway approvals, String team) throws Exception {
        List<Tool> tools = new ArrayList<>(List.of(WorkspaceToolsFixture.tool("bash")));
        tools.addAll(CronTools.all(new SchedulerClient(base.toURI(), Optional.of(LeadServiceStub.TOKEN), Duration.ofSeconds(30))));
        AgentEngine engine = AgentEngine.builder()
                .model(new GatewayModelClient(new LlmGateway(new LlmSettings(model.baseUrl(), "sk-test", "scripted",
                        Optional.empty(), Duration.ofSeconds(20)))))
                .tools(ToolRegistry.of(tools)).events(e -> { }).bundledSkills(List.of()).approvals(approvals).build();
        return engine.open(AgentContext.of(team, "lead", AgentRole.LEAD, this::shell), null);
    }

    /** A real, small workspace: runs the command with sh in a temporary directory. */
    private ToolOutcome shell(String tool, String callId, ObjectNode args,
            WorkspaceToolExecutor.Target target) {
        if (!"bash".equals(tool)) {
            return ToolOutcome.failure("only bash in this test");
        }
        try {
            Process p = new ProcessBuilder("sh", "-c", args.path("command").asText()).directory(workspace.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            return new ToolOutcome(out, null, done ? p.exitValue() : null, false, null, 0);
        } catch (Exception e) {
            return ToolOutcome.failure(e.toString());
        }
    }
}

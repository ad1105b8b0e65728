package dev.cohort.core.tools.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.testing.IdentityContext;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.ToolArguments;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lead's cron tools and their client, against a small in-memory scheduler playing scheduler-service's API. */
class CronToolsTest {

    private StubScheduler scheduler;
    private SchedulerClient client;
    private final ToolContext lead = IdentityContext.lead("alpha");

    @BeforeEach
    void start() throws Exception {
        scheduler = new StubScheduler();
        client = new SchedulerClient(scheduler.baseUrl(), Optional.of("secret"), Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        scheduler.close();
    }

    @Test
    void theThreeToolsRegisterUnderTheSeedsNamesWithTimezoneAdded() {
        ToolRegistry registry = ToolRegistry.of(CronTools.all(client));

        assertThat(registry.names()).containsExactly("schedule_cron", "list_crons", "cancel_cron");
        JsonObjectSchema schedule = registry.find("schedule_cron").orElseThrow().spec().parameters();
        assertThat(schedule.properties()).containsOnlyKeys("cron", "prompt", "recurring", "durable", "timezone");
        assertThat(schedule.required()).containsExactly("cron", "prompt");
        assertThat(registry.find("cancel_cron").orElseThrow().spec().parameters().required()).containsExactly("job_id");
        assertThat(registry.find("list_crons").orElseThrow().isMutating()).isFalse();
        assertThat(registry.find("schedule_cron").orElseThrow().isMutating()).isTrue();
    }

    @Test
    void scheduleCronCreatesTheJobForTheCallersTeamWithTheHostsIdentity() {
        ToolResult r = new ScheduleCronTool(client).execute(call("schedule_cron",
                "{\"cron\":\"*/2 * * * *\",\"prompt\":\"print the date\",\"timezone\":\"Europe/Berlin\"}"), lead);

        assertThat(r).isEqualTo(ToolResult.ok("Scheduled cron_1: '*/2 * * * *' → print the date"
                + " [recurring, durable, Europe/Berlin]; next firing 2030-01-01T00:02:00Z"));
        assertThat(scheduler.requests).containsExactly("POST /api/v1/teams/alpha/crons");
        assertThat(scheduler.authorizations).containsExactly("Bearer secret");
        assertThat(scheduler.jobs.get("alpha")).singleElement()
                .satisfies(j -> assertThat(j.path("createdBy").asText()).isEqualTo("alpha/lead"));
    }

    @Test
    void aSessionJobTellsTheModelItIsLostOnRestart() {
        ToolResult r = new ScheduleCronTool(client).execute(call("schedule_cron",
                "{\"cron\":\"0 9 * * 1\",\"prompt\":\"weekly report\",\"recurring\":false,\"durable\":false}"), lead);

        assertThat(r.content()).isEqualTo("Scheduled cron_1: '0 9 * * 1' → weekly report [one-shot, session, UTC];"
                + " next firing 2030-01-01T00:02:00Z\nNote: not durable: gone after a scheduler restart");
    }

    @Test
    void theSchedulersRefusalIsShownToTheModelNamingItsRule() {
        ToolResult r = new ScheduleCronTool(client).execute(call("schedule_cron",
                "{\"cron\":\"0 0 * * 8\",\"prompt\":\"x\"}"), lead);

        assertThat(r).isEqualTo(new ToolResult("Error: day-of-week: 8 is outside 0-7", true, "scheduler:invalid-cron"));
    }

    @Test
    void aBlankPromptIsRefusedBeforeAskingTheScheduler() {
        ToolResult r = new ScheduleCronTool(client).execute(call("schedule_cron", "{\"cron\":\"@daily\",\"prompt\":\"  \"}"), lead);

        assertThat(r).isEqualTo(new ToolResult("Error: prompt is required: the message injected when the job fires", true,
                "arguments"));
        assertThat(scheduler.requests).isEmpty();
    }

    @Test
    void listCronsShowsOneLinePerJobOrSaysThereAreNone() {
        ListCronsTool list = new ListCronsTool(client);
        assertThat(list.execute(call("list_crons", "{}"), lead)).isEqualTo(ToolResult.ok(ListCronsTool.EMPTY));

        new ScheduleCronTool(client).execute(call("schedule_cron",
                "{\"cron\":\"*/2 * * * *\",\"prompt\":\"print the current date and time, then say nothing else\"}"), lead);

        assertThat(list.execute(call("list_crons", "{}"), lead)).isEqualTo(ToolResult.ok(
                "  cron_1: '*/2 * * * *' → print the current date and time, then sa… [recurring, durable]"
                        + " next 2030-01-01T00:02:00Z (UTC)"));
    }

    @Test
    void cancelCronCancelsAndReportsAnUnknownIdToTheModel() {
        new ScheduleCronTool(client).execute(call("schedule_cron", "{\"cron\":\"@hourly\",\"prompt\":\"p\"}"), lead);
        CancelCronTool cancel = new CancelCronTool(client);

        assertThat(cancel.execute(call("cancel_cron", "{\"job_id\":\"cron_1\"}"), lead)).isEqualTo(ToolResult.ok("Cancelled cron_1"));
        assertThat(cancel.execute(call("cancel_cron", "{\"job_id\":\"cron_1\"}"), lead)).isEqualTo(new ToolResult(
                "Error: no cron job 'cron_1' in team alpha; list_crons shows the ids", true, "not-found"));
        assertThat(scheduler.jobs.get("alpha")).isEmpty();
    }

    @Test
    void readsAreRetriedThroughABriefOutage() {
        scheduler.failNext.set(2);

        assertThat(client.list("alpha")).isEmpty();
        assertThat(scheduler.requests).hasSize(3);
    }

    @Test
    void aCreateIsNotRetriedAfterAServerErrorSoItIsNeverDuplicated() {
        scheduler.failNext.set(1);

        assertThatThrownBy(() -> client.schedule("alpha", new ScheduleCronArgs("@daily", "p", null, null, null, "alpha/lead")))
                .isInstanceOf(SchedulerClient.Unavailable.class);
        assertThat(scheduler.requests).containsExactly("POST /api/v1/teams/alpha/crons");
    }

    @Test
    void anUnreachableSchedulerEndsTheTurn() throws Exception {
        int freePort;
        try (ServerSocket s = new ServerSocket(0)) {
            freePort = s.getLocalPort();
        }
        SchedulerClient down = new SchedulerClient(URI.create("http://127.0.0.1:" + freePort), Optional.empty(),
                Duration.ofSeconds(2));

        assertThatThrownBy(() -> new ListCronsTool(down).execute(call("list_crons", "{}"), lead))
                .isInstanceOf(ToolInfrastructureException.class)
                .hasMessageStartingWith("cannot list cron jobs: scheduler at http://127.0.0.1:" + freePort + " unavailable");
    }

    @Test
    void aKeyedCreateIsRetriedThroughAServerErrorUnderTheCallsKey() {
        scheduler.failNext.set(1);
        ToolCall schedule = call("schedule_cron", "{\"cron\":\"@daily\",\"prompt\":\"p\"}");

        ToolResult r = new ScheduleCronTool(client).execute(schedule, lead);

        assertThat(r.error()).as(r.content()).isFalse();
        // both attempts carry the same key, so the scheduler can answer the second from the first if both arrived
        String key = EffectKey.of(schedule, lead).uuid().toString();
        assertThat(scheduler.requests).containsExactly("POST /api/v1/teams/alpha/crons", "POST /api/v1/teams/alpha/crons");
        assertThat(scheduler.idempotencyKeys).containsExactly(key, key);
        assertThat(scheduler.jobs.get("alpha")).hasSize(1);
    }

    @Test
    void aCancelCarriesTheKeyOfItsCall() {
        new ScheduleCronTool(client).execute(call("schedule_cron", "{\"cron\":\"@hourly\",\"prompt\":\"p\"}"), lead);
        ToolCall cancel = call("cancel_cron", "{\"job_id\":\"cron_1\"}");

        assertThat(new CancelCronTool(client).execute(cancel, lead)).isEqualTo(ToolResult.ok("Cancelled cron_1"));
        assertThat(scheduler.idempotencyKeys.get(1)).isEqualTo(EffectKey.of(cancel, lead).uuid().toString());
    }

    private static final AtomicInteger CALL_IDS = new AtomicInteger();

    /** A new call (a new call id): repeating a call is what the idempotency tests do on purpose, with the same object. */
    private static ToolCall call(String name, String json) {
        ObjectNode args = (ObjectNode) Json.MAPPER.valueToTree(ToolArguments.parse(json, null).args());
        return new ToolCall("call-" + CALL_IDS.incrementAndGet(), name, args);
    }
}

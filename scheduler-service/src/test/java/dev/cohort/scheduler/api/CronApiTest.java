package dev.cohort.scheduler.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.scheduler.support.LeadServiceStub;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The cron API of the contract over HTTP: create, list, get, cancel, and every refusal as problem+json. */
@QuarkusTest
class CronApiTest {

    private static RequestSpecification api() {
        return given().header("Authorization", "Bearer " + LeadServiceStub.TOKEN).contentType(ContentType.JSON);
    }

    private static Response create(String team, String body) {
        return api().body(body).post("/api/v1/teams/{team}/crons", team);
    }

    @Test
    void schedulesListsGetsAndCancelsAJob() {
        Instant before = Instant.now();
        Response created = create("api-crud", "{\"cron\":\"*/2 * * * *\",\"prompt\":\"print the date\"}");
        Instant after = Instant.now(); // the job was created between the two

        assertThat(created.statusCode()).isEqualTo(201);
        JsonPath job = created.jsonPath();
        String id = job.getString("id");
        assertThat(id).matches("cron_[a-z0-9]{12}");
        assertThat(created.header("Location")).endsWith("/api/v1/teams/api-crud/crons/" + id);
        assertThat(Map.of("team", job.getString("team"), "target", job.getString("target"), "cron", job.getString("cron"),
                "prompt", job.getString("prompt"), "recurring", job.getBoolean("recurring"), "durable", job.getBoolean("durable"),
                "timezone", job.getString("timezone"), "missedPolicy", job.getString("missedPolicy"), "fireCount", job.getInt("fireCount")))
                .isEqualTo(Map.of("team", "api-crud", "target", "lead", "cron", "*/2 * * * *", "prompt", "print the date",
                        "recurring", true, "durable", true, "timezone", "UTC", "missedPolicy", "skip", "fireCount", 0));
        Instant next = Instant.parse(job.getString("nextFireAt"));
        // the next even minute strictly after creation ("every 2 minutes" = minutes divisible by 2)
        assertThat(next.getEpochSecond() % 120).isZero();
        assertThat(next).isAfter(before).isBeforeOrEqualTo(after.plus(Duration.ofMinutes(2)));
        assertThat(job.getString("note")).isNull();

        assertThat(api().get("/api/v1/teams/api-crud/crons").jsonPath().getList("id")).containsExactly(id);
        assertThat(api().get("/api/v1/teams/api-crud/crons/{id}", id).jsonPath().getString("prompt")).isEqualTo("print the date");

        assertThat(api().delete("/api/v1/teams/api-crud/crons/{id}", id).statusCode()).isEqualTo(204);
        assertThat(api().get("/api/v1/teams/api-crud/crons").jsonPath().getList("id")).isEmpty();
        assertProblem(api().delete("/api/v1/teams/api-crud/crons/{id}", id), 404, "not-found",
                "team 'api-crud' has no cron job '" + id + "'");
    }

    @Test
    void aNonDurableJobSaysItIsGoneAfterARestart() {
        Response r = create("api-session", "{\"cron\":\"@daily\",\"prompt\":\"p\",\"durable\":false,\"recurring\":false,"
                + "\"timezone\":\"Europe/Berlin\",\"missedPolicy\":\"fire-once\",\"target\":\"alice\"}");

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.jsonPath().getString("note")).startsWith("not durable: this job lives only as long as scheduler instance ")
                .endsWith(" and is gone after a scheduler restart");
        assertThat(List.of(r.jsonPath().getString("target"), r.jsonPath().getString("timezone"), r.jsonPath().getString("missedPolicy")))
                .containsExactly("alice", "Europe/Berlin", "fire-once");
    }

    @Test
    void anInvalidCronIsRefusedNamingTheFieldAndTheValue() {
        assertProblem(create("api-invalid", "{\"cron\":\"0 0 * * 8\",\"prompt\":\"p\"}"), 400, "invalid-cron",
                "day-of-week: 8 is outside 0-7");
        assertProblem(create("api-invalid", "{\"cron\":\"0 0 30 2 *\",\"prompt\":\"p\"}"), 400, "invalid-cron",
                "cron '0 0 30 2 *' never fires (no matching date in the next 50 years)");
        assertProblem(create("api-invalid", "{\"prompt\":\"p\"}"), 400, "invalid-cron",
                "cron is required (5 fields: minute hour day-of-month month day-of-week)");
    }

    @Test
    void aScheduleMoreFrequentThanTheMinimumIntervalIsRefused() {
        // the test profile sets cohort.scheduler.min-interval=2m
        assertProblem(create("api-interval", "{\"cron\":\"* * * * *\",\"prompt\":\"p\"}"), 400, "invalid-cron",
                "cron '* * * * *' fires every 1 minute; the minimum interval is 2 minutes (cohort.scheduler.min-interval)");
        assertProblem(create("api-interval", "{\"cron\":\"0,1 9 * * *\",\"prompt\":\"p\"}"), 400, "invalid-cron",
                "cron '0,1 9 * * *' fires every 1 minute; the minimum interval is 2 minutes (cohort.scheduler.min-interval)");
        assertThat(create("api-interval", "{\"cron\":\"0,1 9 * * *\",\"prompt\":\"p\",\"recurring\":false}").statusCode())
                .as("a one-shot job has no interval").isEqualTo(201);
    }

    @Test
    void anUnknownTeamIsRefused() {
        assertProblem(create("ghost-team", "{\"cron\":\"@daily\",\"prompt\":\"p\"}"), 400, "unknown-team",
                "team 'ghost-team' does not exist (create it on lead-service first)");
        assertProblem(create("Not_A_Team", "{\"cron\":\"@daily\",\"prompt\":\"p\"}"), 400, "invalid-request",
                "team: 'Not_A_Team' is not a team id (must match [a-z0-9][a-z0-9-]{0,62})");
    }

    @Test
    void theTeamLimitIsEnforced() {
        // the test profile sets cohort.scheduler.max-jobs-per-team=5
        for (int i = 0; i < 5; i++) {
            assertThat(create("api-limit", "{\"cron\":\"@hourly\",\"prompt\":\"job " + i + "\"}").statusCode()).isEqualTo(201);
        }
        assertProblem(create("api-limit", "{\"cron\":\"@hourly\",\"prompt\":\"one too many\"}"), 400, "limit-exceeded",
                "team 'api-limit' already has 5 cron jobs, the limit (cohort.scheduler.max-jobs-per-team); cancel one first");
        assertThat(api().get("/api/v1/teams/api-limit/crons").jsonPath().getList("id")).hasSize(5);
    }

    @Test
    void aJobAnAgentSchedulesMayFireAtMostEveryTenMinutesWhilePeopleKeepTheGeneralInterval() {
        String team = "api-model-interval";
        String agent = ",\"createdBy\":\"" + team + "/lead\"";
        // the general limit (2m in the test profile) is named when it is the one broken
        assertProblem(create(team, "{\"cron\":\"* * * * *\",\"prompt\":\"p\"" + agent + "}"), 400, "invalid-cron",
                "cron '* * * * *' fires every 1 minute; the minimum interval of a job an agent schedules is 10 minutes"
                        + " (cohort.scheduler.model-jobs.min-interval); schedule it less often, or a person can create it"
                        + " (cohort cron add)");
        assertProblem(create(team, "{\"cron\":\"*/5 * * * *\",\"prompt\":\"p\"" + agent + "}"), 400, "invalid-cron",
                "cron '*/5 * * * *' fires every 5 minutes; the minimum interval of a job an agent schedules is 10 minutes"
                        + " (cohort.scheduler.model-jobs.min-interval); schedule it less often, or a person can create it"
                        + " (cohort cron add)");
        assertThat(create(team, "{\"cron\":\"*/10 * * * *\",\"prompt\":\"p\"" + agent + "}").statusCode()).isEqualTo(201);
        assertThat(create(team, "{\"cron\":\"*/5 * * * *\",\"prompt\":\"p\",\"recurring\":false" + agent + "}")
                .statusCode()).as("a one-shot job has no interval").isEqualTo(201);
        // people: the CLI, the dashboard, any createdBy that is not an agent id (the test profile allows 5 jobs)
        for (String person : List.of("cli", "dashboard", "alice")) {
            assertThat(create(team, "{\"cron\":\"*/5 * * * *\",\"prompt\":\"p\",\"createdBy\":\"" + person + "\"}")
                    .statusCode()).as(person).isEqualTo(201);
        }
    }

    @Test
    void aTeamsAgentsMayKeepOnlyAFewJobsWhilePeopleMayStillAddTheirsAndTheLimitsSaySo() {
        String team = "api-model-limit";
        // the test profile sets cohort.scheduler.model-jobs.max-per-team=3 (and max-jobs-per-team=5)
        for (int i = 0; i < 3; i++) {
            assertThat(create(team, "{\"cron\":\"@hourly\",\"prompt\":\"job " + i + "\",\"createdBy\":\"" + team
                    + "/lead\"}").statusCode()).isEqualTo(201);
        }
        assertProblem(create(team, "{\"cron\":\"@daily\",\"prompt\":\"one more\",\"createdBy\":\"" + team
                + "/alice\"}"), 400, "limit-exceeded", "team 'api-model-limit' already has 3 cron jobs scheduled by its"
                + " agents, the limit (cohort.scheduler.model-jobs.max-per-team); cancel one first, or a person can create"
                + " the job (cohort cron add)");
        assertThat(create(team, "{\"cron\":\"@daily\",\"prompt\":\"mine\",\"createdBy\":\"cli\"}").statusCode())
                .isEqualTo(201);

        assertThat(api().get("/api/v1/teams/{team}/crons/limits", team).jsonPath().getMap(""))
                .isEqualTo(Map.of("team", team, "maxJobsPerTeam", 5, "minIntervalSeconds", 120, "maxModelJobsPerTeam", 3,
                        "modelMinIntervalSeconds", 600, "jobs", 4, "modelJobs", 3));
    }

    @Test
    void otherBadFieldsAreRefusedOneByOne() {
        assertProblem(create("api-fields", "{\"cron\":\"@daily\"}"), 400, "invalid-request",
                "prompt is required: the message the target receives when the job fires");
        assertProblem(create("api-fields", "{\"cron\":\"@daily\",\"prompt\":\"p\",\"timezone\":\"Mars/Olympus\"}"), 400,
                "invalid-request", "timezone: 'Mars/Olympus' is not a time-zone id (e.g. UTC, Europe/Berlin, America/New_York)");
        assertProblem(create("api-fields", "{\"cron\":\"@daily\",\"prompt\":\"p\",\"target\":\"Bob!\"}"), 400,
                "invalid-request", "target: 'Bob!' is neither 'lead' nor a teammate name matching [a-z][a-z0-9_-]{0,31}");
        assertProblem(create("api-fields", "{\"cron\":\"@daily\",\"prompt\":\"p\",\"missedPolicy\":\"always\"}"), 400,
                "invalid-request", "missedPolicy: 'always' is not one of skip, fire-once");
        assertProblem(create("api-fields", "{\"cron\":\"@daily\",\"prompt\":\"" + "x".repeat(8001) + "\"}"), 400,
                "invalid-request", "prompt has 8001 characters; the limit is 8000 (cohort.scheduler.max-prompt-length)");
        Response notJson = create("api-fields", "{\"cron\": ");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(notJson.contentType()).startsWith("application/problem+json");
    }

    @Test
    void theApiNeedsTheBearerTokenButHealthDoesNot() {
        Response none = given().get("/api/v1/teams/api-auth/crons");
        assertProblem(none, 401, "unauthorized", "missing bearer token (Authorization: Bearer <token>; cohort.api.token is set)");
        assertProblem(given().header("Authorization", "Bearer nope").get("/api/v1/teams/api-auth/crons"), 401,
                "unauthorized", "invalid bearer token");

        Response ready = given().get(TestHTTPResourceManager.getManagementUri() + "/health/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.jsonPath().getList("checks.name", String.class))
                .anySatisfy(n -> assertThat(n).containsIgnoringCase("database"))
                .anySatisfy(n -> assertThat(n).containsIgnoringCase("kafka"));
        assertThat(given().get(TestHTTPResourceManager.getManagementUri() + "/metrics").statusCode()).isEqualTo(200);
    }

    private static Response createKeyed(String team, String key, String body) {
        return api().header("Idempotency-Key", key).body(body).post("/api/v1/teams/{team}/crons", team);
    }

    private static Response cancelKeyed(String team, String key, String id) {
        return api().header("Idempotency-Key", key).delete("/api/v1/teams/{team}/crons/{id}", team, id);
    }

    @Test
    void aRepeatedKeyedCreateGetsTheFirstJobAndMakesNoSecond() {
        String key = UUID.randomUUID().toString();
        Response first = createKeyed("api-idem", key, "{\"cron\":\"*/2 * * * *\",\"prompt\":\"print the date\"}");
        // the same request, its fields in another order: a retry need not be byte-identical
        Response repeat = createKeyed("api-idem", key, "{\"prompt\":\"print the date\", \"cron\":\"*/2 * * * *\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.header("Idempotent-Replayed")).isNull();
        assertThat(repeat.statusCode()).isEqualTo(201);
        assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(repeat.header("Location")).isEqualTo(first.header("Location"));
        assertThat(repeat.jsonPath().getMap("")).isEqualTo(first.jsonPath().getMap(""));
        assertThat(api().get("/api/v1/teams/api-idem/crons").jsonPath().getList("id"))
                .containsExactly(first.jsonPath().getString("id"));
    }

    @Test
    void aKeyReusedForAnotherRequestIsRefusedAndChangesNothing() {
        String key = UUID.randomUUID().toString();
        String id = createKeyed("api-idem-reuse", key, "{\"cron\":\"@daily\",\"prompt\":\"p\"}").jsonPath().getString("id");

        assertProblem(createKeyed("api-idem-reuse", key, "{\"cron\":\"@daily\",\"prompt\":\"another prompt\"}"), 422,
                "idempotency-key-reused", "Idempotency-Key '" + key + "' was already used for a different request"
                        + " (another create); a retry must repeat its request exactly, a new request needs a new key");
        assertProblem(cancelKeyed("api-idem-reuse", key, id), 422, "idempotency-key-reused", "Idempotency-Key '" + key
                + "' was already used for a different request (a create); a retry must repeat its request exactly, a new"
                + " request needs a new key");
        assertThat(api().get("/api/v1/teams/api-idem-reuse/crons").jsonPath().getList("id")).containsExactly(id);
    }

    @Test
    void aRepeatedKeyedCancelIsAnsweredNoContentAgain() {
        String id = create("api-idem-cancel", "{\"cron\":\"@daily\",\"prompt\":\"p\"}").jsonPath().getString("id");
        String other = create("api-idem-cancel", "{\"cron\":\"@hourly\",\"prompt\":\"q\"}").jsonPath().getString("id");
        String key = UUID.randomUUID().toString();

        Response first = cancelKeyed("api-idem-cancel", key, id);
        Response repeat = cancelKeyed("api-idem-cancel", key, id);

        assertThat(List.of(first.statusCode(), repeat.statusCode())).containsExactly(204, 204);
        assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
        // without the key (or with a new one) the job is simply gone
        assertThat(cancelKeyed("api-idem-cancel", UUID.randomUUID().toString(), id).statusCode()).isEqualTo(404);
        assertProblem(cancelKeyed("api-idem-cancel", key, other), 422, "idempotency-key-reused", "Idempotency-Key '" + key
                + "' was already used for a different request (a cancel of another job); a retry must repeat its request"
                + " exactly, a new request needs a new key");
        assertThat(api().get("/api/v1/teams/api-idem-cancel/crons").jsonPath().getList("id")).containsExactly(other);
    }

    @Test
    void concurrentCreatesWithOneKeyMakeOneJob() throws Exception {
        String key = UUID.randomUUID().toString();
        int n = 6;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Response>> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                all.add(pool.submit(() -> {
                    start.await();
                    return createKeyed("api-idem-race", key, "{\"cron\":\"@daily\",\"prompt\":\"p\"}");
                }));
            }
            start.countDown();
            Set<String> ids = new HashSet<>();
            for (Future<Response> f : all) {
                Response r = f.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.asString()).isEqualTo(201);
                ids.add(r.jsonPath().getString("id"));
            }
            assertThat(ids).hasSize(1);
            assertThat(api().get("/api/v1/teams/api-idem-race/crons").jsonPath().getList("id")).containsExactlyElementsOf(ids);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aMalformedIdempotencyKeyIsRefused() {
        assertProblem(createKeyed("api-idem-bad", "x".repeat(256), "{\"cron\":\"@daily\",\"prompt\":\"p\"}"), 400,
                "invalid-request", "Idempotency-Key must be 1-255 visible ASCII characters, e.g. a UUID");
        assertProblem(cancelKeyed("api-idem-bad", "two words", "cron_x"), 400, "invalid-request",
                "Idempotency-Key must be 1-255 visible ASCII characters, e.g. a UUID");
        assertThat(api().get("/api/v1/teams/api-idem-bad/crons").jsonPath().getList("id")).isEmpty();
    }

    private static void assertProblem(Response r, int status, String slug, String detail) {
        assertThat(r.statusCode()).as(r.asString()).isEqualTo(status);
        assertThat(r.contentType()).startsWith("application/problem+json");
        JsonPath p = r.jsonPath();
        assertThat(List.of(p.getString("type"), p.getInt("status"), p.getString("detail")))
                .containsExactly("urn:cohort:problem:" + slug, status, detail);
        assertThat(p.getString("title")).isNotBlank();
    }
}

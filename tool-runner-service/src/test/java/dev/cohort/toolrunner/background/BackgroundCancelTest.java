package dev.cohort.toolrunner.background;

import static dev.cohort.toolrunner.Calls.args;
import static dev.cohort.toolrunner.Calls.bash;
import static dev.cohort.toolrunner.Calls.call;
import static dev.cohort.toolrunner.Calls.newTeam;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cohort.core.toolrunner.BackgroundJob;
import dev.cohort.core.toolrunner.ToolCallResult;
import dev.cohort.toolrunner.Calls;
import dev.cohort.toolrunner.TempWorkspaceResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cancel race of background jobs, made deterministic with the launch seam: the job thread is held just before it
 * decides to launch, the cancel is recorded, then the thread goes on.
 */
@QuarkusTest
class BackgroundCancelTest {
    @Inject
    BackgroundJobs jobs;

    @AfterEach
    void removeSeam() {
        jobs.beforeLaunch(null);
    }

    @Test
    void aCancelThatArrivesBeforeTheProcessStartsWinsAndTheCommandNeverRuns() throws Exception {
        String team = newTeam();
        bash(team, "true"); // the workspace exists before the job
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> heldJob = new AtomicReference<>();
        jobs.beforeLaunch(id -> {
            if (heldJob.compareAndSet(null, id)) {
                held.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        ToolCallResult r = call("bash", team, "alice", null, args("command", "touch ran-marker",
                "run_in_background", true));
        String id = r.outputRef().substring("cohort-output://".length());
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(heldJob.get()).isEqualTo(id);

        CompletableFuture<BackgroundJob> cancel = CompletableFuture.supplyAsync(() -> given()
                .header("Authorization", "Bearer " + TempWorkspaceResource.TOKEN)
                .delete("/internal/v1/background/" + id).then().statusCode(200).extract().as(BackgroundJob.class));
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.cancelRequested(id));
        assertThat(cancel).isNotDone(); // it waits for the end to be stored, which the held thread has not done
        release.countDown();

        BackgroundJob job = cancel.get(30, TimeUnit.SECONDS);
        assertThat(job.status()).isEqualTo("cancelled");
        assertThat(job.error()).isEqualTo("cancelled before it started");
        assertThat(job.exitCode()).isNull();
        assertThat(job.finishedAt()).isNotNull();
        assertThat(Files.exists(Calls.workspace(team).resolve("ran-marker"))).isFalse();
        assertThat(jobs.cancelRequested(id)).isFalse();
    }

    @Test
    void cancellingAJobThatAlreadyEndedChangesNothing() throws Exception {
        String team = newTeam();
        ToolCallResult r = call("bash", team, "alice", null, args("command", "echo quick", "run_in_background", true));
        String id = r.outputRef().substring("cohort-output://".length());
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.find(id).map(j -> !j.status().equals("running"))
                .orElse(false));
        BackgroundJob job = jobs.cancel(id).orElseThrow();
        assertThat(job.status()).isEqualTo("completed");
        assertThat(job.exitCode()).isZero();
        assertThat(job.summary()).isEqualTo("quick\n");
    }
}

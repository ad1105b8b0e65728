package dev.cohort.scheduler.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.protocol.payload.CronFiring;
import dev.cohort.core.protocol.Topics;
import dev.cohort.scheduler.jobs.CronJob;
import dev.cohort.scheduler.jobs.MissedPolicy;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The records of a firing keep the wire shape they had before they were built from typed payloads. */
class FiringRecordsTest {

    private static final Instant DUE = Instant.parse("2026-12-01T09:00:00Z");
    private static final Instant FIRED = Instant.parse("2026-12-01T09:00:00.250Z");

    private static Firing firing(String target, String prompt, boolean catchUp, Instant missedSince) {
        CronJob job = new CronJob("cron_1", "default", target, "0 9 * * *", prompt, true, true, "Europe/Paris",
                MissedPolicy.SKIP, "lead", DUE.minusSeconds(86400), null, DUE, null, 0);
        return new Firing(job, DUE, catchUp, missedSince, FIRED);
    }

    @Test
    void theCronFiredEventIsTheJsonItWasBeforeTheTypedPayload() {
        Firing f = firing("alice", "run the nightly checks", true, Instant.parse("2026-11-30T09:00:00Z"));
        FiringRecords.Out out = FiringRecords.event(f);
        assertThat(out.topic()).isEqualTo(Topics.EVENTS);
        assertThat(out.key()).isEqualTo("default");
        assertThat(out.value()).isEqualTo("{\"id\":\"" + f.eventId() + "\",\"team\":\"default\",\"agent\":\"alice\","
                + "\"seq\":0,\"ts\":\"2026-12-01T09:00:00.250Z\",\"type\":\"cron_fired\",\"data\":{\"jobId\":\"cron_1\","
                + "\"cron\":\"0 9 * * *\",\"timezone\":\"Europe/Paris\",\"target\":\"alice\",\"dueAt\":\"2026-12-01T09:00:00Z\","
                + "\"catchUp\":true,\"missedSince\":\"2026-11-30T09:00:00Z\",\"recurring\":true,\"messageId\":\""
                + f.messageId() + "\",\"prompt\":\"run the nightly checks\"}}");
    }

    @Test
    void anOnTimeFiringHasNoMissedSinceAndALongPromptIsCutToItsPreview() {
        String prompt = "x".repeat(250);
        String value = FiringRecords.event(firing("lead", prompt, false, null)).value();
        assertThat(value).doesNotContain("missedSince").contains("\"catchUp\":false")
                .contains("\"prompt\":\"" + "x".repeat(200) + "…\"");
    }

    @Test
    void aTeammateWakeUpCarriesTheCronMetadataItCarriedBefore() {
        Firing f = firing("alice", "run the nightly checks", false, null);
        FiringRecords.Out out = FiringRecords.wakeUp(f);
        assertThat(out.topic()).isEqualTo(Topics.TEAMMATE_INBOX);
        assertThat(out.key()).isEqualTo("default/alice");
        AgentMessage m = AgentMessage.parse(out.value());
        assertThat(m).isEqualTo(new AgentMessage(f.messageId(), "default", "scheduler", "alice", MessageType.MESSAGE,
                "[cron] run the nightly checks", Map.of("source", "cron", "cronJobId", "cron_1",
                        "dueAt", "2026-12-01T09:00:00Z", "catchUp", false), FIRED));
        assertThat(m.metadataAs(CronFiring.class)).isEqualTo(CronFiring.of("cron_1", DUE, false));
    }
}

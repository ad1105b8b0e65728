package dev.cohort.scheduler.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.cohort.scheduler.jobs.TeamDirectory;
import dev.cohort.scheduler.support.LeadServiceStub;
import dev.cohort.scheduler.support.ManualClock;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The team check against a small HTTP server playing lead-service. */
class LeadServiceTeamDirectoryTest {

    private HttpServer lead;
    private final ManualClock clock = new ManualClock(Instant.parse("2030-01-01T00:00:00Z"));

    @BeforeEach
    void start() {
        lead = LeadServiceStub.start("t0ken");
    }

    @AfterEach
    void stop() {
        lead.stop(0);
    }

    private LeadServiceTeamDirectory directory(Optional<String> token) {
        URI base = URI.create("http://127.0.0.1:" + lead.getAddress().getPort() + "/");
        return new LeadServiceTeamDirectory(base, token, Duration.ofSeconds(30), Duration.ofSeconds(60), clock);
    }

    @Test
    void aKnownTeamExistsAndAnUnknownOneDoesNot() {
        LeadServiceTeamDirectory teams = directory(Optional.of("t0ken"));

        assertThat(teams.exists("alpha")).isTrue();
        assertThat(teams.exists("ghost")).isFalse();
    }

    @Test
    void withoutTheApiTokenLeadServiceRefusesAndTheLookupFails() {
        assertThatThrownBy(() -> directory(Optional.empty()).exists("alpha"))
                .isInstanceOf(TeamDirectory.TeamLookupException.class)
                .hasMessage("lead-service answered HTTP 401 for team 'alpha'");
    }

    @Test
    void aPositiveAnswerIsReusedUntilItsTimeToLiveEnds() {
        LeadServiceTeamDirectory teams = directory(Optional.of("t0ken"));
        assertThat(teams.exists("alpha")).isTrue();
        lead.stop(0); // lead-service goes away

        assertThat(teams.exists("alpha")).as("cached").isTrue();
        clock.set(clock.instant().plusSeconds(61));
        assertThatThrownBy(() -> teams.exists("alpha")).isInstanceOf(TeamDirectory.TeamLookupException.class)
                .hasMessageContaining("is unreachable");
    }

    @Test
    void anUnreachableLeadServiceIsALookupFailureNotAnUnknownTeam() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        LeadServiceTeamDirectory teams = new LeadServiceTeamDirectory(URI.create("http://127.0.0.1:" + port),
                Optional.of("t0ken"), Duration.ofSeconds(30), Duration.ofSeconds(60), clock);

        assertThatThrownBy(() -> teams.exists("alpha")).isInstanceOf(TeamDirectory.TeamLookupException.class)
                .hasMessageStartingWith("lead-service at http://127.0.0.1:" + port + " is unreachable");
    }
}

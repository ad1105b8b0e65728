package dev.cohort.host.client;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.protocol.Json;
import dev.cohort.devstack.Ports;
import dev.cohort.lead.approvals.ApprovalService;
import dev.cohort.lead.teams.TeamRepository;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.assertj.core.groups.Tuple;
import org.eclipse.microprofile.config.ConfigProvider;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * agent-host's {@link LeadInternalClient} against the real internal board API of this lead-service (the test's own
 * HTTP port, {@code %test.cohort.lead-internal.url}), behind the test's {@code cohort.internal.token}: what a teammate will do.
 * In this package to reach the client's test constructor (a client without the token).
 */
@QuarkusTest
class LeadInternalClientTest {

    @Inject
    LeadInternalClient lead;

    @Inject
    TeamRepository teams;

    String team;

    @BeforeEach
    void newTeam() {
        team = "client-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(teams.insert(team, null, "default")).isTrue();
    }

    @Test
    void aTeammateCreatesListsGetsClaimsAndCompletesTasksThroughTheClient() {
        LeadTasks.Task schema = lead.create(team, "lead", "setup database schema", "tables first", null);
        LeadTasks.Task api = lead.create(team, "lead", "create API endpoints", null, List.of(schema.id()));

        assertThat(lead.list(team)).extracting(LeadTasks.Task::id, LeadTasks.Task::status, LeadTasks.Task::claimable)
                .containsExactly(Tuple.tuple(schema.id(), "pending", true),
                        Tuple.tuple(api.id(), "pending", false));
        assertThat(lead.get(team, api.id()).blockers()).containsExactly(schema.id());

        LeadTasks.Claim claim = lead.claim(team, schema.id(), "alice", null, 60.0);
        assertThat(claim.fresh()).isTrue();
        assertThat(claim.leaseToken()).isNotBlank();
        assertThat(claim.task().owner()).isEqualTo("alice");
        assertThat(claim.task().status()).isEqualTo("in_progress");
        // the same claim sent again (what a retry does) is the same claim, not a refusal
        LeadTasks.Claim again = lead.claim(team, schema.id(), "alice", claim.leaseToken(), 60.0);
        assertThat(again.fresh()).isFalse();
        assertThat(again.leaseToken()).isEqualTo(claim.leaseToken());

        assertThat(lead.heartbeat(team, schema.id(), "alice", claim.leaseToken(), 60.0).owner()).isEqualTo("alice");

        LeadTasks.Completion done = lead.complete(team, schema.id(), "alice", claim.leaseToken(), "schema.sql written");
        assertThat(done.task().status()).isEqualTo("completed");
        assertThat(done.task().result()).isEqualTo("schema.sql written");
        assertThat(done.unblocked()).extracting(LeadTasks.Task::id).containsExactly(api.id());
        assertThat(lead.complete(team, schema.id(), "alice", claim.leaseToken(), "schema.sql written").repeated()).isTrue();

        Optional<LeadTasks.Claim> next = lead.claimNext(team, "bob", null, null);
        assertThat(next).hasValueSatisfying(c -> assertThat(c.task().id()).isEqualTo(api.id()));
        assertThat(lead.claimNext(team, "carol", null, null)).as("nothing else is free").isEmpty();
        assertThat(lead.release(team, api.id(), "bob", next.get().leaseToken()).status()).isEqualTo("pending");
    }

    @Test
    void aRefusalOfTheBoardIsALeadRefusedExceptionWithItsCodeAndOwner() {
        LeadTasks.Task t = lead.create(team, "lead", "contended", null, null);
        lead.claim(team, t.id(), "alice", null, null);

        assertThatThrownBy(() -> lead.claim(team, t.id(), "bob", null, null))
                .isInstanceOfSatisfying(LeadRefusedException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.code()).isEqualTo("owned");
                    assertThat(e.owner()).isEqualTo("alice");
                    assertThat(e).hasMessageContaining("already claimed by alice");
                });
        assertThatThrownBy(() -> lead.get(team, "task_999999"))
                .isInstanceOfSatisfying(LeadRefusedException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.code()).isEqualTo("not-found");
                });
        assertThatThrownBy(() -> lead.create(team, "lead", "", null, null))
                .isInstanceOfSatisfying(LeadRefusedException.class, e -> assertThat(e.status()).isEqualTo(400))
                .hasMessageContaining("subject is required");
    }

    @Test
    void withoutTheInternalTokenTheLeadRefusesTheCall() {
        String url = ConfigProvider.getConfig().getValue(LeadInternalClient.URL_KEY, String.class);
        LeadInternalClient anonymous = new LeadInternalClient(URI.create(url), Optional.empty());
        LeadInternalClient wrong = new LeadInternalClient(URI.create(url), Optional.of("not-the-token"));

        assertThatThrownBy(() -> anonymous.list(team)).isInstanceOfSatisfying(LeadRefusedException.class,
                e -> assertThat(e.status()).isEqualTo(401)).hasMessageContaining("missing bearer token");
        assertThatThrownBy(() -> wrong.list(team)).isInstanceOfSatisfying(LeadRefusedException.class,
                e -> assertThat(e.status()).isEqualTo(401)).hasMessageContaining("invalid bearer token");
        // and the refusal is the filter's, before any resource: nothing was created
        given().contentType("application/json").body("{\"agent\":\"lead\",\"subject\":\"sneaky\"}")
                .post("/internal/v1/teams/" + team + "/tasks").then().statusCode(401)
                .header("WWW-Authenticate", "Bearer").contentType("application/problem+json");
        assertThat(lead.list(team)).isEmpty();
    }

    @Test
    void anUnreachableLeadIsALeadUnavailableExceptionNotARefusal() {
        // a port nobody listens on: the connection is refused (the bean would retry this; this client has no retries)
        LeadInternalClient nobody = new LeadInternalClient(URI.create("http://127.0.0.1:" + Ports.free()),
                Optional.of("test-internal-token"));
        assertThatThrownBy(() -> nobody.get(team, "task_1")).isInstanceOf(LeadUnavailableException.class)
                .hasMessageContaining("lead-service unreachable");
    }

    private ApprovalGateway.Request ask(String callId) {
        return new ApprovalGateway.Request(team, "alice", "turn-c", callId, "bash",
                Json.MAPPER.createObjectNode().put("command", "rm -r build"),
                "destructive command: rm", Duration.ofMinutes(5));
    }

    @Test
    void aTeammatesApprovalIsAskedThroughTheClientPendingUntilAPersonApproves() {
        ApprovalGateway.Decision pending = lead.checkApproval(team, ask("call-c1"));
        assertThat(pending.status()).isEqualTo(ApprovalGateway.Decision.Status.PENDING);
        assertThat(pending.approvalId()).isEqualTo(ApprovalService.idOf(team, "alice", "turn-c",
                "call-c1"));
        RemoteApprovalGateway gateway = new RemoteApprovalGateway(lead);
        assertThat(gateway.check(ask("call-c1"))).isEqualTo(pending);

        given().contentType("application/json").body(Map.of("approve", true))
                .post("/api/v1/teams/" + team + "/approvals/" + pending.approvalId()).then().statusCode(200);
        assertThat(gateway.check(ask("call-c1"))).isEqualTo(ApprovalGateway.Decision.approve());

        // a host's sweep: the answered one is settled, a pending one and an unknown id are not
        ApprovalGateway.Decision waiting = gateway.check(ask("call-c3"));
        assertThat(lead.settledApprovals(team, List.of(pending.approvalId(), waiting.approvalId(), "no-such-approval")))
                .containsExactly(pending.approvalId());
        assertThat(lead.settledApprovals(team, List.of())).isEmpty();

        ApprovalGateway.Decision other = gateway.check(ask("call-c2"));
        given().contentType("application/json").body(Map.of("approve", false, "reason", "not now"))
                .post("/api/v1/teams/" + team + "/approvals/" + other.approvalId()).then().statusCode(200);
        assertThat(gateway.check(ask("call-c2"))).isEqualTo(ApprovalGateway.Decision.deny("denied by the user: not now"));
    }

    @Test
    void theRemoteGatewayDeniesTheCallWithAClearReasonWhenTheLeadCannotBeAsked() {
        LeadInternalClient nobody = new LeadInternalClient(URI.create("http://127.0.0.1:" + Ports.free()),
                Optional.of("test-internal-token"));
        ApprovalGateway.Decision down = new RemoteApprovalGateway(nobody).check(ask("call-d1"));
        assertThat(down.status()).isEqualTo(ApprovalGateway.Decision.Status.DENIED);
        assertThat(down.reason()).startsWith("the approval could not be asked: lead-service is unavailable (lead-service "
                + "unreachable").endsWith("); the call was not run, try it again later");

        String url = ConfigProvider.getConfig().getValue(LeadInternalClient.URL_KEY, String.class);
        LeadInternalClient wrong = new LeadInternalClient(URI.create(url), Optional.of("not-the-token"));
        ApprovalGateway.Decision refused = new RemoteApprovalGateway(wrong).check(ask("call-d2"));
        assertThat(refused.status()).isEqualTo(ApprovalGateway.Decision.Status.DENIED);
        assertThat(refused.reason()).contains("lead-service refused (401").contains("invalid bearer token")
                .endsWith("the call was not run");
        // nothing was asked of the lead
        given().get("/api/v1/teams/" + team + "/approvals").then().statusCode(200)
                .body("size()", Matchers.equalTo(0));
    }

    @Test
    void anAnswerTheClientCannotReadIsTheLeadFailingNotADecision() {
        assertThatThrownBy(() -> LeadInternalClient.decision(new LeadApprovals.Answer("maybe", null, null)))
                .isInstanceOf(LeadUnavailableException.class).hasMessageContaining("unknown approval status \"maybe\"");
        assertThatThrownBy(() -> LeadInternalClient.decision(new LeadApprovals.Answer("pending", null, null)))
                .isInstanceOf(LeadUnavailableException.class).hasMessageContaining("without an approval id");
    }
}

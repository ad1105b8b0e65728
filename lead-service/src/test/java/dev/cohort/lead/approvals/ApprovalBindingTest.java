package dev.cohort.lead.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.core.engine.ApprovalGateway.Decision;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.approvals.ApprovalService;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An approval covers exactly the call it was asked for: the stored request binds the tool and a digest of its
 * arguments, and a later ask under the same (team, agent, turn, call) for another tool or other arguments is refused,
 * whatever the request's answer was. Against the real store, in the module's one Quarkus boot.
 */
@QuarkusTest
class ApprovalBindingTest {

    @Inject
    ApprovalService approvals;

    private static ApprovalGateway.Request ask(String team, String turn, String tool, String json) {
        return new ApprovalGateway.Request(team, "lead", turn, "call-1", tool, Json.read(json, ObjectNode.class), "destructive command: rm", Duration.ofMinutes(10));
    }

    private static String newTeam() {
        return "appr-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void anApprovedCallRunsOnlyWithTheArgumentsItWasAskedFor() {
        String team = newTeam();
        String turn = "turn-" + UUID.randomUUID();
        Decision first = approvals.check(ask(team, turn, "bash", "{\"command\":\"rm -r build\"}"));
        assertThat(first.status()).isEqualTo(Decision.Status.PENDING);
        assertThat(approvals.resolve(team, first.approvalId(), true, null)).isTrue();

        // the same call, its arguments in another key order and spacing: still the approved call
        assertThat(approvals.check(ask(team, turn, "bash", "{ \"command\" : \"rm -r build\" }")).status())
                .isEqualTo(Decision.Status.APPROVED);
        // another command under the same turn and call id: refused, naming the rule
        Decision other = approvals.check(ask(team, turn, "bash", "{\"command\":\"rm -rf ~\"}"));
        assertThat(other.status()).isEqualTo(Decision.Status.DENIED);
        assertThat(other.reason()).contains("rule: approval-mismatch").contains(first.approvalId());
        // another tool with the same arguments: refused too
        assertThat(approvals.check(ask(team, turn, "write_file", "{\"command\":\"rm -r build\"}")).status())
                .isEqualTo(Decision.Status.DENIED);
        // the approved call itself is still approved afterwards
        assertThat(approvals.check(ask(team, turn, "bash", "{\"command\":\"rm -r build\"}")).status())
                .isEqualTo(Decision.Status.APPROVED);
    }

    @Test
    void aPendingRequestIsNotAnsweredPendingForAnotherCall() {
        String team = newTeam();
        String turn = "turn-" + UUID.randomUUID();
        Decision first = approvals.check(ask(team, turn, "bash", "{\"command\":\"make clean\",\"timeout\":5}"));
        assertThat(first.status()).isEqualTo(Decision.Status.PENDING);
        assertThat(approvals.check(ask(team, turn, "bash", "{\"timeout\":5,\"command\":\"make clean\"}")).status())
                .isEqualTo(Decision.Status.PENDING);
        assertThat(approvals.check(ask(team, turn, "bash", "{\"command\":\"make clean\",\"timeout\":600}")).status())
                .isEqualTo(Decision.Status.DENIED);
    }
}

package dev.cohort.teammate.engine;

import dev.cohort.core.engine.ApprovalGateway;
import dev.cohort.host.client.LeadInternalClient;
import dev.cohort.host.client.RemoteApprovalGateway;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Where a teammate's ASK goes (permission bubbling): to its team's approvals in lead-service over
 * the internal API ({@link RemoteApprovalGateway}: the same approvals API, events and deterministic id as the lead's
 * own asks, naming the teammate). The engine never blocks on it: a pending answer parks the turn
 * ({@code waiting_approval}, no thread); lead-service publishes {@code approval_resolved} on the teammate's inbox when
 * it is answered or expires, and the host's sweep asks the lead for settled ones as a safety net
 * ({@link TeammateProgram#settled}). An unreachable lead is a denial the model can read, never a hung turn.
 */
@ApplicationScoped
public class TeammateApprovals {

    @Inject
    LeadInternalClient lead;

    private ApprovalGateway gateway;

    @PostConstruct
    void init() {
        gateway = new RemoteApprovalGateway(lead);
    }

    /** The gateway of the teammates' engine. */
    public ApprovalGateway gateway() {
        return gateway;
    }
}

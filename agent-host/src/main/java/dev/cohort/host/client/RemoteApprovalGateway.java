package dev.cohort.host.client;

import dev.cohort.core.engine.ApprovalGateway;
import io.quarkus.logging.Log;
import java.util.Objects;

/**
 * The engine's {@link ApprovalGateway} for agents hosted outside lead-service (teammates): every ask goes to the lead
 * ({@link LeadInternalClient#checkApproval}, contract §6), which stores the request, announces it, and answers at
 * once; a {@code pending} answer parks the turn, and the lead's {@code approval_resolved} on the agent's inbox wakes
 * it to ask again.
 *
 * <p>When the lead cannot be asked (unreachable, failing or timing out after the client's retries, or refusing the
 * ask), the call is <b>denied</b> with a reason that says so: the call does not run, the model sees why and can go on
 * or try later, and the turn is not ended by an exception. Asking is idempotent, so a later try of the same call is
 * the same request.
 */
public final class RemoteApprovalGateway implements ApprovalGateway {

    private final LeadInternalClient lead;

    public RemoteApprovalGateway(LeadInternalClient lead) {
        this.lead = Objects.requireNonNull(lead, "lead");
    }

    @Override
    public Decision check(Request r) {
        try {
            return lead.checkApproval(r.team(), r);
        } catch (LeadRefusedException e) {
            Log.warnf("team=%s agent=%s turn=%s call=%s approval ask refused by lead-service: %s", r.team(), r.agent(),
                    r.turnId(), r.callId(), e.getMessage());
            return Decision.deny("the approval could not be asked (" + e.getMessage() + "); the call was not run");
        } catch (LeadUnavailableException e) {
            Log.warnf("team=%s agent=%s turn=%s call=%s approval ask failed, lead-service unavailable: %s", r.team(),
                    r.agent(), r.turnId(), r.callId(), e.getMessage());
            return Decision.deny("the approval could not be asked: lead-service is unavailable (" + e.getMessage()
                    + "); the call was not run, try it again later");
        }
    }
}

package dev.cohort.teammate.service;

import dev.cohort.core.engine.ApprovalGateway;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Where a teammate's ASK goes. For now every ask is denied at once with a sentence the model can act on (a turn never
 * hangs on it); the lead's approvals over HTTP ({@code dev.cohort.host.client.RemoteApprovalGateway}, contract §6)
 * replace {@link #gateway()} when they are wired.
 */
@ApplicationScoped
public class TeammateApprovals {

    /** The denial every ask gets until approvals are bubbled to the team's lead. */
    public static final String NOT_WIRED = "this call needs a human's approval, and teammates cannot ask for one yet: "
            + "do the task without it, or tell the lead (send_message) what you need run";

    private static final ApprovalGateway DENY_UNTIL_BUBBLED = request -> ApprovalGateway.Decision.deny(NOT_WIRED);

    /** The gateway of the teammates' engine. */
    public ApprovalGateway gateway() {
        return DENY_UNTIL_BUBBLED;
    }
}

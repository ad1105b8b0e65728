package dev.cohort.teammate.inbox;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Topics;
import dev.cohort.host.ownership.PartitionOwnership;
import dev.cohort.teammate.agent.TeammateHost;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The teammates' ownership: a teammate lives where the partition of {@code cohort.teammate.inbox} its key
 * {@code <team>/<name>} hashes to is assigned (see {@link PartitionOwnership}). On an assignment the active teammates
 * of those partitions are adopted (a turn in progress resumes; an idle one re-parks until its deadline); on a revoke
 * they are detached ({@link InboxPoller} passes the rebalance on). With the cooperative-sticky assignor the listener is told only the partitions that move, so the
 * teammates on the others keep running through a rebalance.
 */
@ApplicationScoped
public class TeammateOwnership extends PartitionOwnership {

    @Inject
    TeammateRepository teammates;

    @Inject
    TeammateHost host;

    @Override
    protected String topic() {
        return Topics.TEAMMATE_INBOX;
    }

    @Override
    protected AgentHost host() {
        return host.agentHost();
    }

    @Override
    protected Duration handoverTimeout() {
        return host.handoverTimeout();
    }

    @Override
    protected List<AgentKey> keysOn(Set<Integer> partitions, int count) {
        return teammates.activeKeys().stream().filter(k -> partitions.contains(partitionOf(k.id(), count))).toList();
    }
}

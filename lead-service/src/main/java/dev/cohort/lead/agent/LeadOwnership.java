package dev.cohort.lead.agent;

import dev.cohort.core.host.AgentHost;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Topics;
import dev.cohort.host.ownership.PartitionOwnership;
import dev.cohort.lead.teams.TeamRepository;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The lead's ownership: a team's lead lives where the team's partition of {@code cohort.prompts} is assigned (its
 * inbox topic is co-partitioned), see {@link PartitionOwnership}. The teams on a partition come from the team table.
 */
@ApplicationScoped
@Identifier("lead-ownership")
public class LeadOwnership extends PartitionOwnership {

    @Inject
    TeamRepository teams;

    @Inject
    LeadHost host;

    @Override
    protected String topic() {
        return Topics.PROMPTS;
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
        return teams.list().stream().map(t -> t.id()).filter(t -> partitions.contains(partitionOf(t, count)))
                .map(t -> new AgentKey(t, Ids.LEAD)).toList();
    }
}

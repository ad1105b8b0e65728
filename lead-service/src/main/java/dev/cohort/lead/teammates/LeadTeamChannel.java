package dev.cohort.lead.teammates;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.team.TeamChannel;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.lead.events.RosterRepository;
import dev.cohort.lead.events.RosterRepository.RosterRow;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import dev.cohort.lead.inbox.InboxRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.UUID;

/**
 * The lead's {@link TeamChannel}: {@code send_message} to a teammate of the roster (a shut-down one still gets it:
 * teammate-service keeps it until a spawn restarts it) or to {@code *} (every roster teammate not shut down), as a
 * {@code message} on {@code cohort.teammate.inbox} keyed {@code <team>/<name>}; {@code check_inbox} over
 * {@code lead.inbox}. A name not in the roster is refused, naming the teammates there are.
 */
@ApplicationScoped
public class LeadTeamChannel implements TeamChannel {

    @Inject
    RosterRepository roster;

    @Inject
    InboxRepository inbox;

    @Inject
    AgentInboxPublisher publisher;

    @Override
    public Delivery send(ToolContext ctx, String to, String content, String messageId) {
        String team = ctx.team();
        List<RosterRow> rows = roster.list(team);
        if (TeamMessages.EVERYONE.equals(to)) {
            List<String> sent = new ArrayList<>();
            for (RosterRow r : rows) {
                if (r.live() && !r.name().equals(ctx.agent())) {
                    publish(team, ctx.agent(), r.name(), content, broadcastId(messageId, r.name()));
                    sent.add(r.name());
                }
            }
            return new Delivery(sent, List.of());
        }
        RosterRow row = rows.stream().filter(r -> r.name().equals(to)).findFirst().orElseThrow(() -> new TeamRefusal(
                "team:unknown-recipient", "no teammate '" + to + "' in team " + team + "; teammates: "
                        + (rows.isEmpty() ? "none yet (spawn_teammate starts one)"
                                : rows.stream().map(RosterRow::name).collect(Collectors.joining(", ")))));
        publish(team, ctx.agent(), row.name(), content, messageId);
        return new Delivery(List.of(row.name()), row.live() ? List.of() : List.of(row.name()));
    }

    /** The id of one recipient's copy of a broadcast: derived, so a repeated broadcast dedupes per recipient. */
    public static String broadcastId(String messageId, String name) {
        return UUID.nameUUIDFromBytes((messageId + "/" + name).getBytes(StandardCharsets.UTF_8)).toString();
    }

    private void publish(String team, String from, String to, String content, String id) {
        try {
            publisher.publish(new AgentMessage(id, team, from, to, MessageType.MESSAGE, content, Map.of(), Instant.now()));
        } catch (IllegalStateException e) {
            throw new ToolInfrastructureException("cannot send the message to " + Ids.agentId(team, to) + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public List<Entry> inbox(ToolContext ctx, int limit) {
        return inbox.recent(ctx.team(), limit).stream()
                .map(e -> new Entry(e.id(), e.sender(), e.type(), e.content(), e.injected(), e.receivedAt())).toList();
    }
}

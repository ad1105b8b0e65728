package dev.cohort.teammate.inbox;

import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.MessageType;
import dev.cohort.core.team.TeamChannel;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolInfrastructureException;
import dev.cohort.platform.kafka.AgentMessagePublisher;
import dev.cohort.teammate.lifecycle.TeammateRepository;
import dev.cohort.teammate.lifecycle.TeammateRepository.TeammateRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A teammate's {@link TeamChannel}: {@code lead} → {@code cohort.lead.inbox}; a teammate → its partition of
 * {@code cohort.teammate.inbox}, if it is registered in {@code teammate.teammates} (a shut-down one is told in the
 * result: its copy waits until a spawn restarts it); {@code *} → every active teammate of the team but the sender,
 * each copy with an id derived from the call's. The inbox is the caller's own {@code teammate.inbox} rows.
 */
@ApplicationScoped
public class TeammateTeamChannel implements TeamChannel {

    /** How long a send waits for the broker's acknowledgement before the call counts as an infrastructure failure. */
    static final long ACK_SECONDS = 30;

    @Inject
    TeammateRepository teammates;

    @Inject
    AgentMessagePublisher publisher;

    @Override
    public Delivery send(ToolContext ctx, String to, String content, String messageId) {
        String team = ctx.team();
        if (Ids.LEAD.equals(to)) {
            publish(message(messageId, team, ctx.agent(), to, content));
            return new Delivery(List.of(to), List.of());
        }
        List<TeammateRow> all = teammates.ofTeam(team);
        if (TeamMessages.EVERYONE.equals(to)) {
            List<String> sent = new ArrayList<>();
            for (TeammateRow r : all) {
                if (r.active() && !r.name().equals(ctx.agent())) {
                    publish(message(perRecipient(messageId, r.name()), team, ctx.agent(), r.name(), content));
                    sent.add(r.name());
                }
            }
            return new Delivery(sent, List.of());
        }
        TeammateRow target = all.stream().filter(r -> r.name().equals(to)).findFirst().orElse(null);
        if (target == null) {
            List<String> known = new ArrayList<>(List.of(Ids.LEAD));
            all.stream().map(TeammateRow::name).filter(n -> !n.equals(ctx.agent())).forEach(known::add);
            throw new TeamRefusal("team:unknown-recipient", "no teammate '" + to + "' in team " + team + "; known: "
                    + String.join(", ", known));
        }
        publish(message(messageId, team, ctx.agent(), to, content));
        return new Delivery(List.of(to), target.active() ? List.of() : List.of(to));
    }

    @Override
    public List<Entry> inbox(ToolContext ctx, int limit) {
        return teammates.inbox(ctx.team(), ctx.agent(), limit);
    }

    /** The id of a broadcast's copy for {@code recipient}: the same for a repeated call, distinct per recipient. */
    static String perRecipient(String messageId, String recipient) {
        return UUID.nameUUIDFromBytes((messageId + "/" + recipient).getBytes(StandardCharsets.UTF_8)).toString();
    }

    private static AgentMessage message(String id, String team, String from, String to, String content) {
        return new AgentMessage(id, team, from, to, MessageType.MESSAGE, content, Map.of(), Instant.now());
    }

    private void publish(AgentMessage m) {
        try {
            publisher.send(m).toCompletableFuture().get(ACK_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolInfrastructureException("interrupted while sending message " + m.id() + " to " + m.to(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new ToolInfrastructureException("the broker did not take message " + m.id() + " to " + m.to() + ": "
                    + (e.getCause() == null ? e : e.getCause()), e);
        }
    }
}

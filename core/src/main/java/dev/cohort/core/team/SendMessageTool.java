package dev.cohort.core.team;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * {@code send_message{to, content}} (lead and teammates): a {@code message} on the recipient's inbox, from the
 * calling agent (host identity; the sender cannot be forged). {@code to} is {@code lead}, a teammate name, or
 * {@code *} for every live teammate. The message id is derived from the call (its {@link EffectKey}), so a turn resumed
 * after a crash sends the same message again, which the recipient's inbox dedupes: it arrives once. An unknown
 * recipient is refused (the seed wrote mailboxes nobody reads); a shut-down one is told in the result, and its
 * copy waits until it is restarted.
 *
 * <p>Not a mutating tool: it changes no workspace, so it stays available in plan mode.
 */
public final class SendMessageTool extends SpecifiedTool {

    public static final String NAME = "send_message";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Send a message to another agent of your team: 'lead', a teammate's name, or '*' for every live teammate."
                    + " The sender is always you.",
            ToolSchemas.object()
                    .addProperty("to", ToolSchemas.string("'lead', a teammate name, or '*' (every live teammate)"))
                    .addProperty("content", ToolSchemas.string("the message text"))
                    .required("to", "content").build());

    private final TeamChannel channel;

    public SendMessageTool(TeamChannel channel) {
        super(SPEC, false);
        this.channel = channel;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String to = call.string("to") == null ? "" : call.string("to").strip();
        String content = call.string("content");
        if (!TeamMessages.EVERYONE.equals(to) && !Ids.LEAD.equals(to) && !Ids.isAgent(to)) {
            return ToolResult.error("arguments", "'" + to + "' is not a recipient: use 'lead', a teammate name"
                    + " (lower case letters, digits, '_' or '-', at most 32) or '*'");
        }
        if (to.equals(ctx.agent())) {
            return ToolResult.error("arguments", "you cannot send a message to yourself");
        }
        if (content == null || content.isBlank()) {
            return ToolResult.error("arguments", "content is empty");
        }
        if (content.length() > TeamMessages.MAX_CONTENT) {
            return ToolResult.error("arguments", "content has " + content.length() + " characters; the limit is "
                    + TeamMessages.MAX_CONTENT + " (put long material in a file and send its path)");
        }
        TeamChannel.Delivery d;
        try {
            d = channel.send(ctx, to, content, EffectKey.of(call, ctx).uuid().toString());
        } catch (TeamChannel.TeamRefusal r) {
            return ToolResult.error(r.rule(), r.getMessage());
        }
        if (d.recipients().isEmpty()) {
            return ToolResult.ok("No live teammate to send to: nobody got the message.");
        }
        StringBuilder b = new StringBuilder("Sent to ").append(String.join(", ", d.recipients())).append('.');
        if (!d.shutDown().isEmpty()) {
            b.append(' ').append(String.join(", ", d.shutDown()))
                    .append(d.shutDown().size() == 1 ? " is" : " are")
                    .append(" shut down: the message waits in the inbox and is read when spawn_teammate restarts")
                    .append(d.shutDown().size() == 1 ? " it." : " them.");
        }
        return ToolResult.ok(b.toString());
    }
}

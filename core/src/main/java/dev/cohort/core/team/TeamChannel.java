package dev.cohort.core.team;

import dev.cohort.core.tools.ToolContext;
import java.time.Instant;
import java.util.List;

/**
 * The port the team tools ({@code send_message}, {@code check_inbox}) work through (ARCHITECTURE §4.3). The lead's
 * host implements it over its roster and {@code lead.inbox}; a teammate's over {@code teammate.teammates} and its own
 * inbox. The caller's identity is always the context's agent (host data), never a tool argument.
 */
public interface TeamChannel {

    /**
     * Sends {@code content} from the context's agent to {@code to}: {@code lead}, a teammate name, or
     * {@link TeamMessages#EVERYONE} (every live teammate but the sender). {@code messageId} is derived from the tool
     * call, so a repeated call (a resumed turn) publishes the same message again, which the recipient's inbox dedupes;
     * a broadcast derives one id per recipient from it.
     *
     * @return who it went to and which of them are shut down (their copy waits until a spawn restarts them)
     * @throws TeamRefusal the recipient is unknown, or is the sender
     */
    Delivery send(ToolContext ctx, String to, String content, String messageId);

    /**
     * The newest {@code limit} messages of the context's agent's own inbox, oldest first, whether already injected
     * into its conversation or not (nothing is consumed by reading).
     */
    List<Entry> inbox(ToolContext ctx, int limit);

    /**
     * The outcome of a send.
     *
     * @param recipients the agents that got a copy
     * @param shutDown   those of them that are shut down
     */
    record Delivery(List<String> recipients, List<String> shutDown) {
        public Delivery {
            recipients = List.copyOf(recipients);
            shutDown = List.copyOf(shutDown);
        }
    }

    /**
     * One inbox message as {@code check_inbox} shows it.
     *
     * @param id         the message id
     * @param from       its sender
     * @param type       its wire type ({@code message}, {@code result}, …)
     * @param content    its full content
     * @param injected   whether it is already in the agent's conversation
     * @param receivedAt when the inbox stored it
     */
    record Entry(String id, String from, String type, String content, boolean injected, Instant receivedAt) {
    }

    /** A send the channel refuses, with the rule for events and a message the model can act on. */
    final class TeamRefusal extends RuntimeException {
        private final String rule;

        public TeamRefusal(String rule, String message) {
            super(message);
            this.rule = rule;
        }

        public String rule() {
            return rule;
        }
    }
}

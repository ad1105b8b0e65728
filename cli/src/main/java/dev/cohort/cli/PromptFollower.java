package dev.cohort.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.protocol.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Follows one prompt through a team's event stream (pure logic, fed one event at a time): which turn answers it, that
 * turn's final answer, its errors, and whether it completed. The prompt's own turn is the one whose events carry its
 * {@code promptId} (in the envelope), or, for a prompt injected into a turn already running, the turn whose {@code turn_completed} lists
 * it in {@code promptIds}. Other prompts' turns, subagents' messages and the lead's intermediate texts (those that
 * came with tool calls) are not the answer. What it hands out is printed as is, so it is neutralised
 * ({@link TerminalText}): the answer keeps its lines, errors and the failure are one line each.
 */
final class PromptFollower {

    private final String promptId;
    private final List<String> errors = new ArrayList<>();
    private String turnId;
    private String lastText;
    private boolean ended;
    private boolean completed;
    private String answer;
    private String failure;

    PromptFollower(String promptId) {
        this.promptId = promptId;
    }

    /** Takes the next event of the stream; true once the prompt's turn has ended (later events are ignored). */
    boolean accept(JsonNode event) {
        if (ended) {
            return true;
        }
        JsonNode data = event.path("data");
        String type = event.path("type").asText();
        boolean labelled = promptId.equals(Event.promptIdOf(event));
        boolean ofTurn = turnId != null && turnId.equals(data.path("turnId").asText(null));
        switch (type) {
            case "turn_started" -> {
                if (labelled) {
                    turnId = data.path("turnId").asText(null);
                }
            }
            case "assistant_message" -> {
                if ((labelled || ofTurn) && !data.path("subagent").asBoolean(false) && hasText(data.path("text"))) {
                    lastText = data.path("text").asText();
                }
            }
            case "error" -> {
                if ((labelled || ofTurn) && hasText(data.path("message"))) {
                    errors.add(data.path("message").asText());
                }
            }
            case "turn_completed" -> {
                if (labelled || ofTurn || lists(data.path("promptIds"))) {
                    end(data);
                }
            }
            default -> {
                // tool calls, tasks, approvals…: `cohort chat` shows them, `send` prints only the answer
            }
        }
        return ended;
    }

    private void end(JsonNode data) {
        ended = true;
        completed = "completed".equals(data.path("status").asText())
                || !data.has("status") && "completed".equals(data.path("reason").asText());
        if (completed) {
            answer = hasText(data.path("text")) ? data.path("text").asText() : lastText;
            return;
        }
        String why = hasText(data.path("message")) ? data.path("message").asText()
                : hasText(data.path("text")) ? data.path("text").asText() : null;
        String reason = data.path("reason").asText("failed");
        failure = "the turn ended: " + reason + (why == null || errors.contains(why) ? "" : " - " + why);
    }

    private boolean lists(JsonNode ids) {
        for (JsonNode id : ids) {
            if (promptId.equals(id.asText())) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasText(JsonNode n) {
        return n.isTextual() && !n.asText().isBlank();
    }

    /** Whether the prompt's turn has ended. */
    boolean ended() {
        return ended;
    }

    /** Whether it ended {@code completed}. */
    boolean completed() {
        return completed;
    }

    /** The final answer of a completed turn (none when the turn ended without text), {@link TerminalText#safe}. */
    Optional<String> answer() {
        return Optional.ofNullable(answer).map(TerminalText::safe);
    }

    /** The turn's {@code error} messages, in order, each {@link TerminalText#line}. */
    List<String> errors() {
        return errors.stream().map(TerminalText::line).toList();
    }

    /** How a turn that did not complete ended ({@code the turn ended: cancelled}, …), {@link TerminalText#line}. */
    Optional<String> failure() {
        return Optional.ofNullable(failure).map(TerminalText::line);
    }
}

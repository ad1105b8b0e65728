package dev.cohort.core.engine.compact;

import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelToolCall;
import java.util.ArrayList;
import java.util.List;

/**
 * L3, the LLM summary (the seed's {@code compact_history}, corrected), as pure functions: what the summariser
 * reads (the <b>most recent</b> content that fits its budget, newest kept, oldest dropped), its prompt (with the
 * {@code compact} tool's focus), and the conversation that replaces the old one (summary + todo list + loaded skills
 * + the latest user request + the last turns verbatim).
 */
public final class Summary {
    /** The start of the summary message. */
    public static final String MARKER = "<compacted";
    static final String INSTRUCTIONS = "You summarise a coding agent's conversation so that the agent can continue "
            + "the work from the summary alone. Keep: 1. the current goal and the user's latest request, verbatim "
            + "where short; 2. key findings and decisions; 3. files read or changed, with paths; 4. work done and "
            + "work remaining; 5. the user's constraints and preferences; 6. errors met and how they were solved. "
            + "Be concise but specific; never invent.";

    private Summary() {
    }

    /** The summariser's system prompt. */
    public static String instructions() {
        return INSTRUCTIONS;
    }

    /**
     * The summariser's user message: the focus, then the conversation rendered newest-last, starting from the oldest
     * message that still fits in {@code budgetTokens} (earlier ones are dropped, with a note); the latest user
     * request is always given.
     */
    public static String input(List<Message> conv, long budgetTokens, String focus, String request) {
        int start = conv.size();
        long used = 0;
        while (start > 0) {
            long t = Tokens.of(conv.get(start - 1));
            if (used + t > budgetTokens && start < conv.size()) {
                break;
            }
            used += t;
            start--;
        }
        StringBuilder sb = new StringBuilder();
        if (focus != null && !focus.isBlank()) {
            sb.append("Focus the summary on: ").append(focus.strip()).append("\n\n");
        }
        if (request != null && !request.isBlank()) {
            String q = request.length() > 4000 ? request.substring(0, 4000) + "…" : request;
            sb.append("The user's latest request (keep it verbatim): ").append(q).append("\n\n");
        }
        if (start > 0) {
            sb.append("[").append(start).append(" older messages are not shown; an earlier summary, if any, is among "
                    + "them only if it fits]\n\n");
        }
        sb.append("Conversation:\n");
        for (int i = start; i < conv.size(); i++) {
            render(sb, conv.get(i), budgetTokens);
        }
        return sb.toString();
    }

    private static void render(StringBuilder sb, Message m, long budget) {
        String content = m.content() == null ? "" : m.content();
        long maxChars = Math.max(2000, budget * 4);
        if (content.length() > maxChars) {
            content = content.substring(content.length() - (int) maxChars); // a huge single message: its end
        }
        switch (m.role()) {
            case USER -> sb.append("user: ").append(content);
            case TOOL -> sb.append("tool result (").append(m.toolName()).append(m.error() ? ", error" : "")
                    .append("): ").append(content);
            case ASSISTANT -> {
                sb.append("assistant: ").append(content);
                for (ModelToolCall c : m.toolCalls()) {
                    sb.append("\n  calls ").append(c.name()).append(' ').append(c.arguments());
                }
            }
        }
        sb.append("\n\n");
    }

    /**
     * The index where the verbatim tail starts: the last {@code keepTurns} assistant turns (with the user message
     * that opened the first of them), shortened while it exceeds {@code tailBudget} tokens; always at a user or
     * assistant message so no tool result loses its call.
     */
    public static int tailStart(List<Message> conv, int keepTurns, long tailBudget) {
        int n = conv.size();
        int start = n;
        int turns = 0;
        for (int i = n - 1; i >= 0 && turns < keepTurns; i--) {
            if (conv.get(i).role() == Message.Role.ASSISTANT) {
                turns++;
                start = i;
            }
        }
        if (start > 0 && start < n && conv.get(start - 1).role() == Message.Role.USER) {
            start--;
        }
        while (start < n && Tokens.of(conv, start, n) > tailBudget) {
            start++;
            while (start < n && conv.get(start).role() == Message.Role.TOOL) {
                start++;
            }
        }
        return start;
    }

    /**
     * The conversation after a summary: the summary message (naming the transcript, the todo list and the loaded
     * skills), then the latest user request if the tail does not hold it, then the tail.
     */
    public static List<Message> rebuild(List<Message> conv, int tailStart, String summary, String transcript,
            String request, String todos, List<String> loadedSkills, String why) {
        StringBuilder sb = new StringBuilder(MARKER).append(" reason=\"").append(why).append("\">\n");
        sb.append("The earlier conversation was compacted into this summary; the full transcript is kept as ")
                .append(transcript).append(".\n\n").append(summary == null || summary.isBlank() ? "(empty summary)"
                        : summary.strip());
        if (todos != null && !todos.isBlank()) {
            sb.append("\n\nYour todo list:\n").append(todos.strip());
        }
        if (loadedSkills != null && !loadedSkills.isEmpty()) {
            sb.append("\n\nSkills you loaded earlier (load them again with load_skill when you need their text): ")
                    .append(String.join(", ", loadedSkills));
        }
        sb.append("\n</compacted>");
        List<Message> out = new ArrayList<>();
        out.add(Message.user(sb.toString()));
        int req = Layers.lastIndexOfRequest(conv, request);
        if (req >= 0 && req < tailStart) {
            out.add(conv.get(req));
        } else if (req < 0 && request != null && !request.isBlank()) {
            out.add(Message.user(request));
        }
        out.addAll(conv.subList(tailStart, conv.size()));
        return out;
    }
}

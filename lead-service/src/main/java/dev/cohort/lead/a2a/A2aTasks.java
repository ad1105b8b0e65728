package dev.cohort.lead.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.AgentMessage;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.PromptSource;
import dev.cohort.core.protocol.payload.Control;
import dev.cohort.lead.a2a.A2aTaskRepository.A2aTaskRow;
import dev.cohort.lead.approvals.ApprovalRepository;
import dev.cohort.lead.approvals.ApprovalRepository.ApprovalRow;
import dev.cohort.lead.approvals.ApprovalsResource;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.events.EventHub;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.inbox.AgentInboxPublisher;
import dev.cohort.lead.prompts.PromptPublisher;
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.prompts.PromptRepository.PromptState;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.web.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A team's A2A tasks. A task is a Cohort prompt and the lead's turn that answers it: the message's text goes to the
 * team's lead as a prompt (source {@code a2a}) whose id is derived from the team and the message's {@code messageId},
 * so a retried {@code SendMessage} names the same prompt and the lead runs it once. Nothing about a task's progress is
 * kept here: its state is read, on whichever replica is asked, from the prompt, the lead's turn, its approvals and its
 * {@code turn_completed} event, all in PostgreSQL, so a task outlives the replica that ran it (the turn resumes on the
 * new owner of the team) and every replica answers the same.
 *
 * <p>States: {@code SUBMITTED} while the prompt waits for the lead; {@code WORKING} while a turn runs it;
 * {@code INPUT_REQUIRED} while that turn waits on an approval (the status message names it, and a message on the task
 * answers it); {@code COMPLETED} when the turn ended with an answer (the {@code answer} artifact); {@code FAILED} when
 * it ended otherwise (the status message says why); {@code CANCELED} after {@code CancelTask}.
 */
@ApplicationScoped
public class A2aTasks {

    static final String SUBMITTED = "TASK_STATE_SUBMITTED";
    static final String WORKING = "TASK_STATE_WORKING";
    static final String INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED";
    static final String COMPLETED = "TASK_STATE_COMPLETED";
    static final String FAILED = "TASK_STATE_FAILED";
    static final String CANCELED = "TASK_STATE_CANCELED";
    static final Set<String> TERMINAL = Set.of(COMPLETED, FAILED, CANCELED);
    static final Set<String> STATES = Set.of(SUBMITTED, WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELED,
            "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED");

    /** The sender of the interrupts a cancel sends to the lead's inbox. */
    static final String CONTROL_SENDER = "a2a";
    private static final Set<String> PROMPT_ENDED = Set.of("done", "failed", "cancelled");
    private static final Pattern YES = Pattern.compile("(?is)^\\s*(approve[d]?|yes|y|allow|ok)\\b[\\s.,:;!-]*(.*)$");
    private static final Pattern NO = Pattern.compile("(?is)^\\s*(den(y|ied)|no|n|reject(ed)?)\\b[\\s.,:;!-]*(.*)$");

    @Inject
    A2aTaskRepository tasks;

    @Inject
    PromptRepository prompts;

    @Inject
    PromptPublisher publisher;

    @Inject
    EventRepository events;

    @Inject
    EventHub hub;

    @Inject
    ApprovalRepository approvals;

    @Inject
    ApprovalsResource approvalAnswers;

    @Inject
    AgentRepository agents;

    @Inject
    AgentInboxPublisher inbox;

    @Inject
    TeamRepository teams;

    @Inject
    LeadConfig config;

    /** The longest a blocking {@code SendMessage} or {@code CancelTask} waits before it answers with the task as it is. */
    @ConfigProperty(name = "cohort.a2a.max-wait", defaultValue = "10m")
    Duration maxWait;

    /** How long {@code CancelTask} waits for a running turn to stop before it answers. */
    @ConfigProperty(name = "cohort.a2a.cancel-wait", defaultValue = "30s")
    Duration cancelWait;

    /** A task's state now: the A2A state, the status message (or null), the answer when completed, the turn. */
    record Status(String state, ObjectNode message, String answer, String turnId, Instant at) {
        boolean terminal() {
            return TERMINAL.contains(state);
        }

        /** A state a blocking call and a stream end at: terminal, or waiting for the client. */
        boolean settled() {
            return terminal() || INPUT_REQUIRED.equals(state);
        }

        /** What a stream compares to tell a change: the state and which status message it has. */
        String key() {
            return state + "/" + (message == null ? "" : message.path("messageId").asText());
        }
    }

    String requireTeam(String team) {
        if (team == null || !teams.exists(team)) {
            throw new A2aError(A2aError.INVALID_PARAMS, "unknown team (tenant) \"" + team + "\"");
        }
        return team;
    }

    /**
     * A new message: a new task (or, for a {@code messageId} seen before, that task), or a message on a task that is
     * waiting for input. Returns the task's id.
     */
    String send(String team, JsonNode message) {
        if (message == null || !message.isObject()) {
            throw A2aError.invalidParams("\"message\" is required");
        }
        String messageId = message.path("messageId").asText("");
        if (messageId.isBlank()) {
            throw A2aError.invalidParams("message.messageId is required");
        }
        String role = message.path("role").asText("");
        if (!role.equals("ROLE_USER") && !role.equals("user")) {
            throw A2aError.invalidParams("message.role must be ROLE_USER, got \"" + role + "\"");
        }
        ArrayNode parts = normalizedParts(message.get("parts"));
        String taskId = message.path("taskId").asText("");
        if (!taskId.isBlank()) {
            answerInput(team, taskId, message, parts);
            return taskId;
        }
        String text = promptText(parts);
        if (text.length() > config.maxPromptChars()) {
            throw A2aError.invalidParams("the message has " + text.length() + " characters of text; the limit is "
                    + config.maxPromptChars());
        }
        String id = UUID.nameUUIDFromBytes((team + "\na2a:" + messageId).getBytes(StandardCharsets.UTF_8)).toString();
        String contextId = message.path("contextId").asText("");
        if (contextId.isBlank()) {
            contextId = Ids.newId();
        }
        ObjectNode stored = Json.MAPPER.createObjectNode();
        stored.put("messageId", messageId);
        stored.put("contextId", contextId);
        stored.put("taskId", id);
        stored.put("role", "ROLE_USER");
        stored.set("parts", parts);
        tasks.insertIfAbsent(team, id, contextId, messageId, Json.write(stored));
        if (prompts.state(team, id).isEmpty()) {
            // again after a send that failed between the row and the record: the lead keeps one prompt per id
            publisher.publish(new PromptRecord(id, team, text, PromptSource.A2A, "a2a:" + messageId, null));
        }
        return id;
    }

    /** Text and data parts; a file ({@code raw}, {@code url}) is refused. */
    private static ArrayNode normalizedParts(JsonNode parts) {
        if (parts == null || !parts.isArray() || parts.isEmpty()) {
            throw A2aError.invalidParams("message.parts must hold at least one part");
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (JsonNode p : parts) {
            ObjectNode n = Json.MAPPER.createObjectNode();
            if (p.hasNonNull("text")) {
                n.put("text", p.get("text").asText());
            } else if (p.has("data")) {
                n.set("data", p.get("data"));
                n.put("mediaType", "application/json");
            } else if (p.has("raw") || p.has("url") || p.has("file")) {
                throw new A2aError(A2aError.CONTENT_TYPE_NOT_SUPPORTED, "this agent takes text and data parts, not files");
            } else {
                throw A2aError.invalidParams("a part must have text or data");
            }
            out.add(n);
        }
        return out;
    }

    private static String promptText(ArrayNode parts) {
        List<String> pieces = new ArrayList<>();
        for (JsonNode p : parts) {
            pieces.add(p.has("text") ? p.get("text").asText() : "```json\n" + Json.write(p.get("data")) + "\n```");
        }
        String text = String.join("\n\n", pieces);
        if (text.isBlank()) {
            throw A2aError.invalidParams("the message has no text");
        }
        return text;
    }

    /**
     * A message on a task waiting for input: the answer to its approval. A data part {@code {approve, approvalId?,
     * reason?}} or a text starting with approve / yes / allow or deny / no / reject (the rest is the reason told to the
     * agent). Any other message on an existing task is refused: the lead works on one prompt's turn at a time.
     */
    private void answerInput(String team, String taskId, JsonNode message, ArrayNode parts) {
        A2aTaskRow row = tasks.find(team, taskId).orElseThrow(() -> A2aError.taskNotFound(team, taskId));
        if (message.hasNonNull("contextId") && !message.get("contextId").asText().isBlank()
                && !message.get("contextId").asText().equals(row.contextId())) {
            throw A2aError.invalidParams("message.contextId \"" + message.get("contextId").asText()
                    + "\" is not the task's context \"" + row.contextId() + "\"");
        }
        Status s = status(row);
        if (!INPUT_REQUIRED.equals(s.state())) {
            throw new A2aError(A2aError.UNSUPPORTED_OPERATION, "task \"" + taskId + "\" is " + s.state()
                    + " and takes no message now; only a task in TASK_STATE_INPUT_REQUIRED does (the answer to its "
                    + "approval). Send a message without taskId for new work");
        }
        List<ApprovalRow> pending = pendingOf(team, s.turnId());
        Boolean approve = null;
        String approvalId = null;
        String reason = null;
        for (JsonNode p : parts) {
            JsonNode d = p.get("data");
            if (d != null && d.isObject() && d.has("approve")) {
                if (!d.get("approve").isBoolean()) {
                    throw A2aError.invalidParams("\"approve\" must be true or false");
                }
                approve = d.get("approve").asBoolean();
                approvalId = d.hasNonNull("approvalId") ? d.get("approvalId").asText() : null;
                reason = d.hasNonNull("reason") ? d.get("reason").asText() : null;
            } else if (p.has("text") && approve == null) {
                String t = p.get("text").asText();
                Matcher yes = YES.matcher(t);
                Matcher no = NO.matcher(t);
                if (yes.matches()) {
                    approve = true;
                    reason = yes.group(2).isBlank() ? null : yes.group(2).strip();
                } else if (no.matches()) {
                    approve = false;
                    reason = no.group(4).isBlank() ? null : no.group(4).strip();
                }
            }
        }
        if (approve == null) {
            throw A2aError.invalidParams("the task waits for an answer to approval \"" + pending.getFirst().id()
                    + "\": send a text starting with \"approve\" or \"deny\" (the rest is the reason), or a data part"
                    + " {\"approve\": true|false, \"approvalId\"?, \"reason\"?}");
        }
        String named = approvalId;
        String id = named;
        if (id == null) {
            if (pending.size() > 1) {
                throw A2aError.invalidParams("the task waits on " + pending.size() + " approvals "
                        + pending.stream().map(ApprovalRow::id).toList() + ": name one with a data part"
                        + " {\"approvalId\", \"approve\"}");
            }
            id = pending.getFirst().id();
        } else if (pending.stream().noneMatch(a -> a.id().equals(named))) {
            throw A2aError.invalidParams("approval \"" + named + "\" is not one this task waits on: "
                    + pending.stream().map(ApprovalRow::id).toList());
        }
        try {
            approvalAnswers.answer(team, id, new ApprovalsResource.Answer(approve, reason));
        } catch (ApiException e) {
            throw A2aError.invalidParams(e.getMessage());
        }
    }

    /** The task as A2A shows it, with at most {@code historyLength} messages of history (null: all). */
    ObjectNode task(String team, String id, Integer historyLength, boolean artifacts) {
        A2aTaskRow row = tasks.find(team, id).orElseThrow(() -> A2aError.taskNotFound(team, id));
        return task(row, status(row), historyLength, artifacts);
    }

    ObjectNode task(A2aTaskRow row, Status s, Integer historyLength, boolean withArtifacts) {
        ObjectNode t = Json.MAPPER.createObjectNode();
        t.put("id", row.id());
        t.put("contextId", row.contextId());
        t.set("status", statusNode(s));
        if (withArtifacts && s.answer() != null) {
            t.putArray("artifacts").add(answerArtifact(s.answer()));
        }
        ArrayNode history = Json.MAPPER.createArrayNode();
        history.add(Json.read(row.messageJson(), JsonNode.class));
        if (s.answer() != null) {
            history.add(agentMessage(row, "answer-" + row.id(), s.answer(), null));
        }
        if (historyLength == null || historyLength > 0) {
            ArrayNode kept = t.putArray("history");
            int from = historyLength == null ? 0 : Math.max(0, history.size() - historyLength);
            for (int i = from; i < history.size(); i++) {
                kept.add(history.get(i));
            }
        }
        ObjectNode meta = t.putObject("metadata");
        meta.put("team", row.team());
        meta.put("promptId", row.id());
        if (s.turnId() != null) {
            meta.put("turnId", s.turnId());
        }
        return t;
    }

    static ObjectNode statusNode(Status s) {
        ObjectNode st = Json.MAPPER.createObjectNode();
        st.put("state", s.state());
        if (s.message() != null) {
            st.set("message", s.message());
        }
        st.put("timestamp", s.at().toString());
        return st;
    }

    static ObjectNode answerArtifact(String answer) {
        ObjectNode a = Json.MAPPER.createObjectNode();
        a.put("artifactId", "answer");
        a.put("name", "answer");
        a.put("description", "the team's answer");
        a.putArray("parts").addObject().put("text", answer);
        return a;
    }

    private static ObjectNode agentMessage(A2aTaskRow row, String messageId, String text, JsonNode data) {
        ObjectNode m = Json.MAPPER.createObjectNode();
        m.put("messageId", messageId);
        m.put("contextId", row.contextId());
        m.put("taskId", row.id());
        m.put("role", "ROLE_AGENT");
        ArrayNode parts = m.putArray("parts");
        parts.addObject().put("text", text);
        if (data != null) {
            ObjectNode d = parts.addObject();
            d.set("data", data);
            d.put("mediaType", "application/json");
        }
        return m;
    }

    /** The task's state, read from the prompt, the lead's turn and its approvals, and the turn's end. */
    Status status(A2aTaskRow row) {
        String team = row.team();
        Instant now = Instant.now();
        Optional<PromptState> prompt = prompts.state(team, row.id());
        String promptStatus = prompt.map(PromptState::status).orElse("queued");
        String turnId = prompt.map(PromptState::turnId).orElse(null);
        boolean canceled = row.canceledAt() != null;
        if ("cancelled".equals(promptStatus)) {
            return new Status(CANCELED, agentMessage(row, "canceled-" + row.id(), "canceled before the team started it",
                    null), null, null, canceled ? row.canceledAt() : now);
        }
        if (PROMPT_ENDED.contains(promptStatus)) {
            Optional<Event> end = turnId == null ? Optional.empty() : events.turnCompleted(team, turnId);
            if (turnId != null && end.isEmpty()) {
                // the prompt's status is written with its turn's end: the event follows at once
                return new Status(WORKING, null, null, turnId, now);
            }
            Instant at = end.map(Event::ts).orElse(now);
            JsonNode data = end.map(Event::data).orElse(Json.MAPPER.createObjectNode());
            if (canceled && !"done".equals(promptStatus)) {
                return new Status(CANCELED, agentMessage(row, "canceled-" + row.id(), "canceled while the team worked on"
                        + " it", null), null, turnId, at);
            }
            if ("done".equals(promptStatus)) {
                return new Status(COMPLETED, null, data.path("text").asText(""), turnId, at);
            }
            String why = data.hasNonNull("message") ? data.get("message").asText()
                    : "the turn ended: " + data.path("reason").asText("failed");
            return new Status(FAILED, agentMessage(row, "failed-" + row.id(), why, null), null, turnId, at);
        }
        if (prompt.isEmpty() || "received".equals(promptStatus)) {
            return new Status(SUBMITTED, null, null, null, row.createdAt());
        }
        List<ApprovalRow> pending = turnId == null ? List.of() : pendingOf(team, turnId);
        if (!pending.isEmpty()) {
            ApprovalRow a = pending.getFirst();
            ObjectNode d = Json.MAPPER.createObjectNode();
            d.put("approvalId", a.id());
            d.put("tool", a.tool());
            d.set("args", Json.read(a.argsJson(), JsonNode.class));
            if (a.reason() != null) {
                d.put("reason", a.reason());
            }
            if (pending.size() > 1) {
                d.set("others", Json.MAPPER.valueToTree(pending.stream().skip(1).map(ApprovalRow::id).toList()));
            }
            String text = "The team's lead asks to run the tool " + a.tool() + " (approval " + a.id() + ")"
                    + (a.reason() == null ? "" : ": " + a.reason())
                    + ". Answer with a message on this task: \"approve\" or \"deny\", optionally followed by a reason.";
            return new Status(INPUT_REQUIRED, agentMessage(row, "approval-" + a.id(), text, d), null, turnId,
                    a.createdAt());
        }
        return new Status(WORKING, null, null, turnId, now);
    }

    private List<ApprovalRow> pendingOf(String team, String turnId) {
        return approvals.list(team, "pending").stream()
                .filter(a -> Ids.LEAD.equals(a.agent()) && turnId != null && turnId.equals(a.turnId())).toList();
    }

    /**
     * Ends the task: a prompt no turn took yet is cancelled at once; a running turn is interrupted on whichever
     * replica hosts it, and the task is {@code CANCELED} once that turn has stopped. A task that has ended is not
     * cancelable.
     */
    Status cancel(String team, String id) {
        A2aTaskRow row = tasks.find(team, id).orElseThrow(() -> A2aError.taskNotFound(team, id));
        Status s = status(row);
        if (s.terminal()) {
            throw new A2aError(A2aError.TASK_NOT_CANCELABLE, "task \"" + id + "\" has ended: " + s.state());
        }
        tasks.markCanceled(team, id);
        JsonNode sent = Json.read(row.messageJson(), JsonNode.class);
        if (!tasks.cancelUnstartedPrompt(team, id, promptText((ArrayNode) sent.get("parts")))) {
            // the replica that owns the team stops the turn; one naming a turn that has ended meanwhile is ignored
            String turnId = s.turnId() != null ? s.turnId()
                    : agents.find(team, Ids.LEAD).map(AgentRepository.AgentRow::turnId).orElse(null);
            if (turnId != null) {
                inbox.publish(AgentMessage.of(team, CONTROL_SENDER, Ids.LEAD, "", Control.interrupt(turnId)));
            }
        }
        return await(team, id, cancelWait, Status::terminal, st -> { });
    }

    /**
     * Waits until the task is settled (terminal, or waiting for input) or {@code max} passed, handing each change of
     * state to {@code onChange} (the first state included); returns the last state. Woken by the team's events (any
     * replica's), with a one-second poll as the safety net.
     */
    Status await(String team, String id, Duration max, Consumer<Status> onChange) {
        return await(team, id, max, Status::settled, onChange);
    }

    /** As {@link #await(String, String, Duration, Consumer)}, until {@code done} holds. */
    Status await(String team, String id, Duration max, Predicate<Status> done, Consumer<Status> onChange) {
        Instant deadline = Instant.now().plus(max);
        String lastKey = null;
        while (true) {
            long seq = events.lastSeq(team);
            A2aTaskRow row = tasks.find(team, id).orElseThrow(() -> A2aError.taskNotFound(team, id));
            Status s = status(row);
            if (!s.key().equals(lastKey)) {
                onChange.accept(s);
                lastKey = s.key();
            }
            if (done.test(s) || !Instant.now().isBefore(deadline)) {
                return s;
            }
            try {
                hub.await(team, seq, Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return s;
            }
        }
    }

    Duration maxWait() {
        return maxWait;
    }

    A2aTaskRow row(String team, String id) {
        return tasks.find(team, id).orElseThrow(() -> A2aError.taskNotFound(team, id));
    }

    /** The team's tasks, newest first, paged; {@code state} filters on the state they have now. */
    List<A2aTaskRow> list(String team, String contextId, int limit, int offset) {
        return tasks.list(team, contextId, limit, offset);
    }
}

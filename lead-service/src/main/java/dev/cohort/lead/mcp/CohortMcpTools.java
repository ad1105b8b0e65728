package dev.cohort.lead.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.lead.approvals.ApprovalsResource;
import dev.cohort.lead.events.EventRepository;
import dev.cohort.lead.events.TeamAgents;
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.prompts.PromptRepository.PromptState;
import dev.cohort.lead.prompts.PromptsResource;
import dev.cohort.lead.tasks.TasksResource;
import dev.cohort.lead.teams.TeamRepository;
import dev.cohort.lead.teams.TeamsResource;
import dev.cohort.lead.web.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tools Cohort serves over MCP ({@link McpProtocol}): hand a prompt to a team and wait for (or poll) its answer,
 * read the task board, list and answer approvals, see the team's agents. Each does what the public HTTP API does (the
 * same resources, the same checks and refusals): a refusal (unknown team, a bad argument, an approval already
 * answered) is a tool result with {@code isError: true} that says why.
 */
@ApplicationScoped
public class CohortMcpTools implements McpProtocol.Tools {

    /** The longest a call may wait for an answer; a longer turn is polled with {@code get_prompt}. */
    static final int MAX_WAIT_SECONDS = 600;
    static final int DEFAULT_WAIT_SECONDS = 60;
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Set<String> ENDED = Set.of("done", "failed");

    @Inject
    PromptsResource prompts;

    @Inject
    PromptRepository promptRows;

    @Inject
    EventRepository events;

    @Inject
    TasksResource tasks;

    @Inject
    ApprovalsResource approvals;

    @Inject
    TeamAgents agents;

    @Inject
    TeamRepository teams;

    private record Tool(String name, String description, ObjectNode inputSchema) {
        ObjectNode listed() {
            ObjectNode t = Json.MAPPER.createObjectNode();
            t.put("name", name);
            t.put("description", description);
            t.set("inputSchema", inputSchema);
            return t;
        }
    }

    private static ObjectNode string(String description) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "string");
        s.put("description", description);
        return s;
    }

    private static ObjectNode team() {
        ObjectNode s = string("the team (default: \"default\")");
        s.put("default", "default");
        return s;
    }

    private static ObjectNode waitSeconds(int dflt) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "integer");
        s.put("minimum", 0);
        s.put("maximum", MAX_WAIT_SECONDS);
        s.put("default", dflt);
        s.put("description", "how long to wait for the team's answer, in seconds; when it is not ready the result says"
                + " so and get_prompt asks again");
        return s;
    }

    private static Map<String, ObjectNode> props(Object... nameAndSchema) {
        Map<String, ObjectNode> m = new LinkedHashMap<>();
        for (int i = 0; i < nameAndSchema.length; i += 2) {
            m.put((String) nameAndSchema[i], (ObjectNode) nameAndSchema[i + 1]);
        }
        return m;
    }

    private static final List<Tool> TOOLS = List.of(
            new Tool("send_prompt", "Hand a prompt to a Cohort team's lead, durably (it survives a restart of the lead),"
                    + " and wait up to wait_seconds for the team's answer. Returns the prompt's id, its status"
                    + " (queued, received, running, injected, done, failed) and, once its turn ended, the answer.",
                    McpProtocol.schema(props("team", team(), "text", string("the prompt"), "wait_seconds",
                            waitSeconds(DEFAULT_WAIT_SECONDS), "idempotency_key",
                            string("the same key sends the same prompt once, however often it is sent")),
                            List.of("text"))),
            new Tool("get_prompt", "A prompt's status and, once its turn ended, the team's answer; waits up to"
                    + " wait_seconds (default 0) for it.",
                    McpProtocol.schema(props("team", team(), "prompt_id", string("the id send_prompt returned"),
                            "wait_seconds", waitSeconds(0)), List.of("prompt_id"))),
            new Tool("list_tasks", "The team's task board: every task with its status, owner and dependencies.",
                    McpProtocol.schema(props("team", team(), "status",
                            string("only tasks with this status (pending, in_progress, completed)")), List.of())),
            new Tool("list_approvals", "The team's approval requests: tool calls of its agents waiting for a person.",
                    McpProtocol.schema(props("team", team(), "status",
                            string("pending (default), approved, denied, expired or cancelled")), List.of())),
            new Tool("answer_approval", "Approve or deny a pending approval request of the team; the waiting agent"
                    + " goes on.",
                    McpProtocol.schema(props("team", team(), "approval_id", string("the request's id"), "approve",
                            bool("true to approve, false to deny"), "reason", string("told to the agent")),
                            List.of("approval_id", "approve"))),
            new Tool("list_agents", "The team's agents (its lead and teammates): role, status, current turn and task,"
                    + " usage.", McpProtocol.schema(props("team", team()), List.of())));

    private static ObjectNode bool(String description) {
        ObjectNode s = Json.MAPPER.createObjectNode();
        s.put("type", "boolean");
        s.put("description", description);
        return s;
    }

    @Override
    public List<ObjectNode> list() {
        return TOOLS.stream().map(Tool::listed).toList();
    }

    @Override
    public ObjectNode call(String name, JsonNode args) {
        Tool tool = TOOLS.stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new McpProtocol.InvalidParams("unknown tool \"" + name + "\"; the tools are "
                        + TOOLS.stream().map(Tool::name).toList()));
        checkArguments(tool, args);
        String team = text(args, "team", "default");
        try {
            JsonNode out = switch (name) {
                case "send_prompt" -> sendPrompt(team, args);
                case "get_prompt" -> promptAnswer(team, args.get("prompt_id").asText(), waitOf(args, 0));
                case "list_tasks" -> Json.MAPPER.valueToTree(Map.of("tasks", tasks.list(team, text(args, "status",
                        null))));
                case "list_approvals" -> Json.MAPPER.valueToTree(Map.of("approvals", approvals.list(team,
                        text(args, "status", "pending"))));
                case "answer_approval" -> Json.MAPPER.valueToTree(approvals.answer(team,
                        args.get("approval_id").asText(), new ApprovalsResource.Answer(args.get("approve").asBoolean(),
                                text(args, "reason", null))));
                case "list_agents" -> Json.MAPPER.valueToTree(Map.of("agents", agents.list(knownTeam(team))));
                default -> throw new IllegalStateException(name);
            };
            return McpProtocol.result(out, false);
        } catch (ApiException e) {
            ObjectNode refused = Json.MAPPER.createObjectNode();
            refused.put("status", e.status());
            refused.put("error", e.getMessage());
            return McpProtocol.result(refused, true);
        }
    }

    /** Arguments the tool's schema allows: required ones present, no others, each of its declared type. */
    private static void checkArguments(Tool tool, JsonNode args) {
        JsonNode props = tool.inputSchema().get("properties");
        for (JsonNode r : tool.inputSchema().get("required")) {
            if (!args.hasNonNull(r.asText())) {
                throw new McpProtocol.InvalidParams(tool.name() + ": \"" + r.asText() + "\" is required");
            }
        }
        args.fieldNames().forEachRemaining(f -> {
            JsonNode schema = props.get(f);
            if (schema == null) {
                throw new McpProtocol.InvalidParams(tool.name() + ": unknown argument \"" + f + "\"; it takes "
                        + Json.MAPPER.convertValue(props, Map.class).keySet());
            }
            JsonNode v = args.get(f);
            if (v.isNull()) {
                return;
            }
            boolean ok = switch (schema.get("type").asText()) {
                case "string" -> v.isTextual();
                case "boolean" -> v.isBoolean();
                case "integer" -> v.canConvertToInt() && v.isIntegralNumber()
                        && v.asInt() >= schema.path("minimum").asInt(Integer.MIN_VALUE)
                        && v.asInt() <= schema.path("maximum").asInt(Integer.MAX_VALUE);
                default -> true;
            };
            if (!ok) {
                throw new McpProtocol.InvalidParams(tool.name() + ": \"" + f + "\" must be " + describe(schema));
            }
        });
    }

    private static String describe(JsonNode schema) {
        String type = schema.get("type").asText();
        return schema.has("maximum") ? "an " + type + " from " + schema.get("minimum").asInt() + " to "
                + schema.get("maximum").asInt() : ("integer".equals(type) ? "an " : "a ") + type;
    }

    private static String text(JsonNode args, String field, String dflt) {
        JsonNode v = args.get(field);
        return v == null || v.isNull() || v.asText().isBlank() ? dflt : v.asText();
    }

    private static int waitOf(JsonNode args, int dflt) {
        JsonNode v = args.get("wait_seconds");
        return v == null || v.isNull() ? dflt : v.asInt();
    }

    private JsonNode sendPrompt(String team, JsonNode args) {
        Response posted = prompts.post(team, new PromptsResource.PostPrompt(args.get("text").asText(),
                text(args, "idempotency_key", null), null));
        String id = String.valueOf(((Map<?, ?>) posted.getEntity()).get("id"));
        return promptAnswer(team, id, waitOf(args, DEFAULT_WAIT_SECONDS));
    }

    /** The prompt's state now, or once its turn ended, whichever comes first within {@code waitSeconds}. */
    private JsonNode promptAnswer(String team, String id, int waitSeconds) {
        Instant deadline = Instant.now().plusSeconds(waitSeconds);
        while (true) {
            Optional<PromptState> state = promptRows.state(team, id);
            Optional<Event> end = state.filter(s -> ENDED.contains(s.status()) && s.turnId() != null)
                    .flatMap(s -> events.turnCompleted(team, s.turnId()));
            // an ended prompt's answer is its turn's turn_completed event; one that ended without a turn has none
            boolean endedWithoutTurn = state.filter(s -> ENDED.contains(s.status()) && s.turnId() == null).isPresent();
            if (end.isPresent() || endedWithoutTurn || !Instant.now().isBefore(deadline)) {
                return view(team, id, state, end);
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return view(team, id, state, end);
            }
        }
    }

    private JsonNode view(String team, String id, Optional<PromptState> state, Optional<Event> end) {
        if (state.isEmpty()) {
            knownTeam(team);
        }
        ObjectNode v = Json.MAPPER.createObjectNode();
        v.put("team", team);
        v.put("promptId", id);
        v.put("status", state.map(PromptState::status).orElse("queued"));
        state.map(PromptState::turnId).ifPresent(t -> v.put("turnId", t));
        end.ifPresent(e -> {
            v.put("answer", e.data().path("text").asText(""));
            v.put("reason", e.data().path("reason").asText(null));
            if (e.data().hasNonNull("message")) {
                v.put("message", e.data().get("message").asText());
            }
        });
        if (end.isEmpty() && !state.map(s -> ENDED.contains(s.status())).orElse(false)) {
            v.put("hint", "not answered yet: call get_prompt with this promptId (and wait_seconds) to wait for it");
        }
        return v;
    }

    /** {@code team}, when it exists; else the API's 404. */
    private String knownTeam(String team) {
        if (!teams.exists(team)) {
            throw TeamsResource.notFound(team);
        }
        return team;
    }
}

package dev.cohort.core.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.PermissionSubject;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolRegistry;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.cohort.core.tools.workspace.ToolOutcome;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many agents of one team parked on approvals, all in-process (no HTTP): a destructive tool counting its runs per
 * agent, a model that asks for it once per turn and then answers with what the tool said, an approval gateway that
 * answers pending until the test answers, and an in-memory store keeping the last saved JSON per agent (what a host
 * keeps: the database row). Shared by {@link ParkedAgentsTest} and the {@code ParkedAgentsBenchmark}.
 */
public final class ParkedFleet {
    public static final String TEAM = "t";
    public static final String TOOL = "discard_work";
    public static final String REQUEST = "Discard the uncommitted work in build/";

    /** Runs of the destructive tool per agent. */
    public final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** The tool results the model was shown per agent, in order. */
    public final Map<String, Queue<String>> seenByModel = new ConcurrentHashMap<>();
    /** The last saved state of every agent, as JSON. */
    public final Map<String, String> saved = new ConcurrentHashMap<>();
    public final Gateway gateway;
    public final AgentEngine engine;

    public ParkedFleet() {
        this(new Gateway());
    }

    public ParkedFleet(ApprovalGateway approvals) {
        this.gateway = approvals instanceof Gateway g ? g : null;
        this.engine = AgentEngine.builder().model(this::chat).tools(ToolRegistry.of(new DiscardTool()))
                .approvals(approvals).bundledSkills(List.of()).build();
    }

    /** The agent's context: team {@code t}, its own store entry, a workspace that must never be called. */
    public AgentContext context(String agent) {
        return AgentContext.of(TEAM, agent, AgentRole.LEAD, (tool, id, args, target) -> ToolOutcome.failure(
                "the workspace is not used by this fleet"))
                .withAllowlist(Set.of(TOOL)).withStore(StateStore.of(s -> saved.put(agent, s.toJson())));
    }

    /** The call id the model uses for this agent's destructive call (distinct per agent). */
    public static String callId(String agent) {
        return "call-" + agent;
    }

    /**
     * A realistic idle conversation: {@code rounds} earlier rounds, each a user request, an assistant reply with a
     * tool call, its result and a final answer, each text about {@code chars} characters and distinct per agent.
     */
    public static AgentState history(String agent, int rounds, int chars) {
        List<Message> m = new ArrayList<>(rounds * 4);
        for (int r = 0; r < rounds; r++) {
            String id = "h" + r + "-" + agent;
            m.add(Message.user(text("Please look at module " + r + " of " + agent + ".", chars)));
            m.add(Message.assistant(text("I will read it first (" + agent + ", round " + r + ").", chars / 4),
                    List.of(new ModelToolCall(id, "read_file", "{\"path\":\"src/m" + r + "/Main.java\"}"))));
            m.add(Message.tool(id, "read_file", text("class Main" + r + " { /* " + agent + " */ }", chars), false));
            m.add(Message.assistant(text("Module " + r + " of " + agent + " looks fine.", chars), List.of()));
        }
        return new AgentState(AgentState.VERSION, m, List.of(), 0, List.of(),
                new Usage(rounds * 1000L, rounds * 100L, rounds, 0), null);
    }

    private static String text(String seed, int chars) {
        StringBuilder b = new StringBuilder(chars + seed.length());
        while (b.length() < chars) {
            b.append(seed).append(' ');
        }
        return b.toString();
    }

    /** The model: asks for the destructive call after the user's request, then reports what the tool said. */
    private ModelClient.Reply chat(ModelClient.Request req) {
        String agent = req.agentId().substring(req.agentId().indexOf('/') + 1);
        Message last = req.messages().get(req.messages().size() - 1);
        if (last.role() == Message.Role.TOOL) {
            seenByModel.computeIfAbsent(agent, a -> new ConcurrentLinkedQueue<>()).add(last.content());
            return new ModelClient.Reply("The tool said: " + last.content(), List.of(), "stop", 1200, 30, null);
        }
        return new ModelClient.Reply("Discarding build/.", List.of(new ModelToolCall(callId(agent), TOOL,
                "{\"what\":\"build/\"}")), "tool_calls", 1200, 30, null);
    }

    /** A mutating tool whose calls the gate asks about: it destroys work. */
    final class DiscardTool implements Tool {
        private final ToolSpecification spec = ToolSchemas.spec(TOOL, "discards uncommitted work",
                ToolSchemas.object().addProperty("what", ToolSchemas.string("what to discard")).required("what")
                        .build());

        @Override
        public String name() {
            return TOOL;
        }

        @Override
        public ToolSpecification spec() {
            return spec;
        }

        @Override
        public boolean isMutating() {
            return true;
        }

        @Override
        public PermissionSubject permissionSubject(ObjectNode args) {
            return new PermissionSubject.Destructive("discard-work", "discarding the uncommitted work in "
                    + args.path("what").asText());
        }

        @Override
        public ToolResult execute(ToolCall call, ToolContext ctx) {
            int n = runs.computeIfAbsent(ctx.agent(), a -> new AtomicInteger()).incrementAndGet();
            return ToolResult.ok("discarded " + call.args().path("what").asText() + " (run " + n + ")");
        }
    }

    /**
     * Answers pending (id = team/agent/turn/call) until {@link #answer} sets the decision; records every request.
     * Never waits.
     */
    public static final class Gateway implements ApprovalGateway {
        public final Queue<Request> asked = new ConcurrentLinkedQueue<>();
        private final Map<String, Decision> answers = new ConcurrentHashMap<>();

        public static String approvalId(Request r) {
            return r.team() + "/" + r.agent() + "/" + r.turnId() + "/" + r.callId();
        }

        public void answer(String approvalId, Decision d) {
            answers.put(approvalId, d);
        }

        @Override
        public Decision check(Request r) {
            asked.add(r);
            String id = approvalId(r);
            return answers.getOrDefault(id, Decision.pending(id));
        }
    }
}

package dev.cohort.lead.agent;

import static dev.cohort.lead.agent.LeadInputLedger.INBOX;
import static dev.cohort.lead.agent.LeadInputLedger.PROMPT;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.AgentContext;
import dev.cohort.core.engine.AgentSession;
import dev.cohort.core.engine.hooks.CommandHook;
import dev.cohort.core.engine.hooks.HookSettings;
import dev.cohort.core.engine.InboxItem;
import dev.cohort.core.engine.InboxSource;
import dev.cohort.core.engine.permission.PermissionMode;
import dev.cohort.core.engine.StopReason;
import dev.cohort.core.engine.TurnResult;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.host.AgentProgram;
import dev.cohort.core.host.AgentRecord;
import dev.cohort.core.host.Next;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.Json;
import dev.cohort.core.protocol.payload.EngineError;
import dev.cohort.core.protocol.payload.TurnCompleted;
import dev.cohort.core.protocol.PromptSource;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.lead.approvals.ApprovalRepository;
import dev.cohort.lead.approvals.ApprovalService;
import dev.cohort.lead.budgets.TeamBudgets;
import dev.cohort.lead.events.EventService;
import dev.cohort.lead.inbox.InboxFormatter;
import dev.cohort.lead.inbox.InboxRepository;
import dev.cohort.lead.inbox.InboxRepository.InboxRow;
import dev.cohort.lead.prompts.PromptRepository;
import dev.cohort.lead.prompts.PromptRepository.QueuedPrompt;
import dev.cohort.lead.teams.AgentRepository;
import dev.cohort.lead.teams.McpServerRepository;
import dev.cohort.lead.teams.PermissionRepository;
import dev.cohort.lead.teams.TeamRepository;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.ConcurrentHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the lead of a team does on the shared {@link dev.cohort.core.host.AgentHost}: its inputs are the team's prompt
 * queue (oldest first, each one turn; {@code [cron]} prompts run unattended) and, when no prompt waits, the pending
 * inbox messages (a background job finished, a teammate reported) as one turn; prompts and messages that arrive
 * during a turn are injected at its next step. A turn's end marks its prompts done or failed; without a model key a
 * prompt is answered with how to configure one. Parked turns wait on approvals, which {@link #settled} checks.
 */
@ApplicationScoped
public class LeadProgram implements AgentProgram {

    @Inject
    TeamBudgets budgets;

    @Inject
    LeadEngine engine;

    @Inject
    AgentRepository agents;

    @Inject
    PromptRepository prompts;

    @Inject
    InboxRepository inbox;

    @Inject
    TeamRepository teams;

    @Inject
    PermissionRepository permissions;

    @Inject
    McpServerRepository mcpServers;

    @Inject
    EventService events;

    @Inject
    ApprovalRepository approvals;

    /** Cancels what an ended turn still waited for. */
    @Inject
    ApprovalService approvalService;

    @Inject
    LlmGateway gateway;

    /**
     * Teams with inputs stored since their lead's last drain (or never drained here): the drain before every model
     * call queries the store only then. Set by every input this replica consumes (before its actor is woken) and when
     * a session opens; cleared before the queries, so an input stored meanwhile sets it again: none is missed.
     */
    private final ConcurrentHashMap<String, AtomicBoolean> unread =
            new ConcurrentHashMap<>();

    /** An input for the team's lead was stored (a prompt, an inbox message): the next drain reads the store. */
    public void inputStored(String team) {
        unread.computeIfAbsent(team, t -> new AtomicBoolean()).set(true);
    }

    /**
     * Kept: a lead's next turn starts from the session it ended with, without adopting the row again and
     * reading its whole conversation back (that read grew with the conversation and was a quarter of the lead's
     * allocations in the teammate benchmark). Safe because the context reads nothing at open that changes while the
     * lead is idle: the permission mode and the workspace are fixed when the team is created, hooks, budgets, usage
     * and the inbox are read through suppliers, and every input reaches the lead through {@link dev.cohort.lead.agent.LeadInputConsumer}
     * (which raises the drain flag). A takeover by another replica goes through adopt/detach, which drop the kept
     * session, and every save is still fenced by the kept version.
     */
    @Override
    public boolean keepIdleSession(AgentKey key) {
        return true;
    }

    @Override
    public boolean exists(AgentKey key) {
        return teams.cached(key.team()).isPresent(); // teams are never deleted
    }

    @Override
    public AgentContext context(AgentKey key, AgentRecord record) {
        String team = key.team();
        String mode = mode(team);
        inputStored(team); // a new session reads whatever is stored
        return AgentContext.of(team, Ids.LEAD, AgentRole.LEAD, engine.workspace())
                .withInbox(new InboxSource() {
                    @Override
                    public List<InboxItem> drain() {
                        return LeadProgram.this.drain(team, List.of());
                    }

                    @Override
                    public List<InboxItem> drain(Collection<String> held) {
                        return LeadProgram.this.drain(team, held);
                    }
                })
                .withTeamContext(() -> "Team: " + team + ". Permission mode: " + mode + ".")
                .withWorkspaceText(workspaceText(team))
                .withMode(() -> PermissionMode.of(mode(team)))
                .withCommandHooks(() -> teamHooks(team))
                // the team's permission rules (PUT …/permissions), one query at each turn start
                .withPermissions(() -> permissions.find(team))
                // the team's MCP servers (PUT …/mcp), one query at each turn start; the engine adds the settings file's
                .withMcpServers(() -> mcpServers.find(team))
                .withTeamUsage(() -> agents.teamUsage(team))
                .withBudgets(() -> budgets.overrides(team))
                // the per-day team budget: the ledger (lead.usage) of every agent of the team since 00:00 UTC, one
                // indexed SUM, read only while such a budget is in force
                .withTeamUsageToday(() -> budgets.usageToday(team));
    }

    @Override
    public void adopted(AgentKey key, AgentRecord record, AgentSession session) {
        // a prompt taken for a turn whose first save never happened (a crash in between) is queued again
        prompts.requeueUnstarted(key.team(), record.state().turn() == null ? null : record.state().turn().turnId());
    }

    @Override
    public void resuming(AgentKey key, String turnId) {
        Log.infof("team=%s agent=lead turn=%s resuming after a restart or a partition move", key.team(), turnId);
    }

    @Override
    public Next next(AgentKey key, AgentSession session) {
        String team = key.team();
        while (true) {
            QueuedPrompt p = prompts.next(team).orElse(null);
            if (p != null) {
                if (!prompts.markRunning(team, p.id())) {
                    continue;
                }
                if (!gateway.settings().hasApiKey()) {
                    noModel(team, p);
                    continue;
                }
                boolean cron = PromptSource.CRON.equals(p.source());
                Log.infof("team=%s agent=lead prompt=%s turn starting (source=%s)", team, p.id(), p.source());
                // the prompt learns the turn id at the turn's first save (LeadInputLedger)
                return Next.prompt(cron ? "[cron] " + p.text() : p.text(), p.source(), cron, p.id());
            }
            List<InboxRow> waiting = inbox.pending(team, 50);
            if (!waiting.isEmpty()) {
                // the turn's input is these messages: marked injected with the turn's first save
                String text = String.join("\n\n", InboxFormatter.inputs(waiting).stream().map(InboxFormatter.Input::text)
                        .toList());
                return Next.turn(text, "inbox", false, waiting.stream().map(m -> INBOX + m.id()).toList());
            }
            return Next.idle();
        }
    }

    @Override
    public void stopped(AgentKey key, TurnResult r) {
        String team = key.team();
        if (r.inProgress()) {
            Log.infof("team=%s agent=lead turn=%s %s: %s", team, r.turnId(), r.reason().wire(), r.text());
            return;
        }
        String status = r.reason() == StopReason.COMPLETED ? "done" : "failed";
        prompts.finishTurn(team, r.turnId(), status);
        if (r.reason() != StopReason.COMPLETED) {
            // a completed turn had every answer it waited for; any other end may leave requests nobody waits for
            approvalService.turnEnded(team, Ids.LEAD, r.turnId(), "the turn ended (" + r.reason().wire() + ") before an answer");
        }
        Log.infof("team=%s agent=lead turn=%s ended: %s", team, r.turnId(), r.reason());
    }

    @Override
    public void abandoned(AgentKey key, String turnId, String message) {
        String team = key.team();
        String msg = "the lead's turn failed unexpectedly: " + message;
        String promptId = turnId == null ? null : prompts.runningPromptOfTurn(team, turnId).orElse(null);
        events.emit(team, Ids.LEAD, EngineError.of(null, msg), promptId);
        events.emit(team, Ids.LEAD, TurnCompleted.failedByHost(turnId, msg,
                turnId == null ? null : prompts.idsOfTurn(team, turnId)), promptId);
        if (turnId != null) {
            prompts.finishTurn(team, turnId, "failed");
            approvalService.turnEnded(team, Ids.LEAD, turnId, "the turn failed before an answer");
        }
        // a prompt marked running before its turn's first save has no turn id yet
        prompts.failRunningWithoutTurn(team);
    }

    @Override
    public Set<String> settled(Collection<String> waitingFor) {
        return new HashSet<>(approvals.settled(List.copyOf(waitingFor)));
    }

    /** Without a key every call would fail with 401: say how to configure a model instead. */
    private void noModel(String team, QueuedPrompt p) {
        String msg = "no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL, MODEL_ID for another OpenAI-compatible "
                + "endpoint) and restart, or run `./cohort up --scripted-model` to try Cohort with the scripted model";
        events.emit(team, Ids.LEAD, EngineError.of(null, msg), p.id());
        events.emit(team, Ids.LEAD, TurnCompleted.failedByHost(null, msg, List.of(p.id())), p.id());
        prompts.setStatus(team, p.id(), "failed");
    }

    /**
     * Prompts and messages that arrived during the turn, injected at the next step. The engine hands each id back with
     * the save of the state that contains it, so nothing is remembered here (and no lock is held around JDBC).
     */
    private List<InboxItem> drain(String team, Collection<String> held) {
        AtomicBoolean flag = unread.computeIfAbsent(team,
                t -> new AtomicBoolean(true));
        if (!flag.getAndSet(false)) {
            return List.of(); // nothing stored since the last drain: no query
        }
        List<InboxItem> out = new ArrayList<>();
        try {
            // what the session holds unsaved (its turn's input until the save beside its first model request) is
            // still pending here: left out, so it is injected once
            Set<String> heldPrompts = Set.copyOf(LeadInputLedger.promptIds(held));
            Set<String> heldMessages = Set.copyOf(LeadInputLedger.inboxMessageIds(held));
            List<QueuedPrompt> queued = prompts.pending(team, 20);
            for (QueuedPrompt p : queued) {
                if (heldPrompts.contains(p.id())) {
                    continue;
                }
                out.add(new InboxItem(PROMPT + p.id(), (PromptSource.CRON.equals(p.source()) ? "[cron] " : "") + p.text(),
                        p.id()));
            }
            List<InboxRow> messages = inbox.pending(team, 50);
            List<InboxRow> fresh = heldMessages.isEmpty() ? messages
                    : messages.stream().filter(m -> !heldMessages.contains(m.id())).toList();
            for (InboxFormatter.Input in : InboxFormatter.inputs(fresh)) {
                out.add(new InboxItem(LeadInputLedger.inboxInputId(in.ids()), in.text()));
            }
            if (queued.size() == 20 || messages.size() == 50) {
                flag.set(true); // more than one drain's worth: read again at the next step
            }
        } catch (RuntimeException e) {
            flag.set(true);
            throw e;
        }
        return out;
    }

    /**
     * The team's permission mode, asked by the gate before every tool call: from {@link TeamRepository#cached} (no
     * query), which every write through the repository clears and every turn start's {@link #teamHooks} read
     * refreshes.
     */
    private String mode(String team) {
        return teams.cached(team).map(t -> t.permissionMode()).orElse("default");
    }

    /**
     * The team's command hooks (API settings), read from the store at each turn start: an edit applies from the next
     * turn, also one made on another replica (this read refreshes the cached team row as well).
     */
    private List<CommandHook> teamHooks(String team) {
        String json = teams.find(team).map(t -> t.hooks()).orElse(null);
        return json == null ? List.of() : HookSettings.parse(Json.read(json, JsonNode.class), "team settings");
    }

    private String workspaceText(String team) {
        if (Ids.DEFAULT_TEAM.equals(team)) {
            return "the team's git repository (the tool runner's root)";
        }
        String own = teams.cached(team).map(t -> t.workspace()).orElse(null);
        return own != null ? "the team's git repository (" + own + ")"
                : "the team's git repository (teams/" + team + " under the tool runner's root)";
    }
}

package dev.cohort.lead.agent;

import dev.cohort.core.engine.AgentState;
import dev.cohort.core.host.AgentKey;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.Json;
import dev.cohort.host.store.EventLedger;
import dev.cohort.host.store.EventLog;
import dev.cohort.host.store.EventsClause;
import dev.cohort.platform.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The lead's inputs, marked in the transaction of the save that contains them: a prompt that started the turn learns
 * the turn id at the turn's first save (the saves before its first model call); prompts ({@value #PROMPT}id) and inbox messages ({@value #INBOX}id,
 * or {@value #INBOX_BATCH}["id",…] for several injected as one {@code [inbox]} input) injected into a running turn are
 * marked {@code injected}. With an {@link EventLog}, the lead's step events ({@code assistant_message}, {@code
 * tool_call_finished}) are stored in the same transaction as the save of their step.
 */
public final class LeadInputLedger implements EventLedger {

    private final EventLog events;

    /** A ledger that stores no events (the engine emits them after each save). */
    public LeadInputLedger() {
        this(null);
    }

    public LeadInputLedger(EventLog events) {
        this.events = events;
    }

    @Override
    public boolean storesEvents() {
        return events != null;
    }

    @Override
    public List<Event> storeEvents(Connection c, AgentKey key,
            List<Event> stepEvents) throws SQLException {
        return events.storeIn(c, stepEvents);
    }

    /** Nothing to mark: the save takes no input, and is not the turn's first (which stamps its prompt). */
    @Override
    public boolean writesNothing(AgentKey key, AgentState state, List<String> injectedIds) {
        return injectedIds.isEmpty() && !stampsPrompt(state);
    }

    @Override
    public EventsClause eventsClause(AgentKey key, List<Event> stepEvents) {
        return events == null ? null : events.clause(stepEvents);
    }

    /** The turn's first save (before its first model call) names the turn on the prompt that started it. */
    private static boolean stampsPrompt(AgentState state) {
        return state.turn() != null && state.turn().turnId() != null && state.turn().modelCalls() == 0;
    }

    @Override
    public void beforeSave(AgentKey key) {
        if (events != null) {
            events.beforeStore(key.team());
        }
    }

    @Override
    public void eventsCommitted(AgentKey key, List<Event> stored) {
        events.committed(stored);
    }

    /** Input ids of the lead: which table a drained item came from. */
    public static final String PROMPT = "prompt:";
    public static final String INBOX = "inbox:";
    /** Several inbox messages injected as one input ({@code [inbox]}): the JSON array of their ids follows. */
    public static final String INBOX_BATCH = "inbox-batch:";

    /** The input id of an input made of these inbox messages. */
    public static String inboxInputId(List<String> messageIds) {
        return messageIds.size() == 1 ? INBOX + messageIds.get(0) : INBOX_BATCH + Json.write(messageIds);
    }

    /** The prompt ids among input ids ({@link #PROMPT}id). */
    public static List<String> promptIds(Collection<String> inputIds) {
        List<String> out = new ArrayList<>();
        for (String id : inputIds) {
            if (id.startsWith(PROMPT)) {
                out.add(id.substring(PROMPT.length()));
            }
        }
        return out;
    }

    /** The inbox message ids among input ids: {@link #INBOX}id, and every id of an {@link #INBOX_BATCH}. */
    public static List<String> inboxMessageIds(Collection<String> inputIds) {
        List<String> out = new ArrayList<>();
        for (String id : inputIds) {
            if (id.startsWith(INBOX)) {
                out.add(id.substring(INBOX.length()));
            } else if (id.startsWith(INBOX_BATCH)) {
                out.addAll(Arrays.asList(Json.read(id.substring(INBOX_BATCH.length()),
                        String[].class)));
            }
        }
        return out;
    }

    @Override
    public void saved(Connection c, AgentKey key, AgentState state, List<String> injectedIds) throws SQLException {
        String team = key.team();
        String turnId = state.turn() == null ? null : state.turn().turnId();
        // the prompt that started the turn is stamped by the turn's first save (before its first model call); later
        // saves of the turn skip the statement, which would match nothing
        if (stampsPrompt(state)) {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE lead.prompts SET turn_id = ? WHERE team = ? AND status = 'running' AND turn_id IS NULL")) {
                ps.setString(1, turnId);
                ps.setString(2, team);
                ps.executeUpdate();
            }
        }
        if (injectedIds.isEmpty()) {
            return;
        }
        List<String> prompts = promptIds(injectedIds);
        List<String> inbox = inboxMessageIds(injectedIds);
        mark(c, "UPDATE lead.prompts SET status = 'injected', turn_id = ? WHERE team = ? AND id = ? AND status = 'received'",
                turnId, team, prompts);
        mark(c, "UPDATE lead.inbox SET status = 'injected' WHERE status = 'received' AND ? IS NOT NULL AND team = ?"
                + " AND agent = 'lead' AND id = ?",
                turnId == null ? "-" : turnId, team, inbox);
    }

    private static void mark(Connection c, String sql, String turnId, String team, List<String> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (String id : ids) {
                Sql.bind(ps, turnId, team, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}

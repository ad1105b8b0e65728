package dev.cohort.lead.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cohort.core.llm.LlmGateway;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.EventType;
import dev.cohort.core.protocol.Ids;
import dev.cohort.core.protocol.PromptRecord;
import dev.cohort.core.protocol.ProtocolException;
import dev.cohort.lead.config.LeadConfig;
import dev.cohort.lead.persistence.PromptRepository;
import dev.cohort.lead.persistence.TeamRepository;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * Runs the lead's turn for a prompt. Sequence: reject prompts for unknown teams → record the prompt (a duplicate
 * id ends here: redelivery is harmless) → {@code turn_started} → one model call through the gateway →
 * {@code assistant_message} → {@code turn_completed}. A model failure becomes an {@code error} event and a failed
 * turn, never a lost prompt. (The full agent loop replaces the single model call in the engine issue.)
 */
@ApplicationScoped
public class LeadTurnService {

    @Inject
    TeamRepository teams;

    @Inject
    PromptRepository prompts;

    @Inject
    EventService events;

    @Inject
    LlmGateway gateway;

    @Inject
    LeadConfig config;

    /** Handles one prompt; throws {@link ProtocolException} for a prompt that must go to the DLQ. */
    public void handle(PromptRecord prompt) {
        if (!teams.exists(prompt.team())) {
            throw new ProtocolException("unknown team \"" + prompt.team() + "\"");
        }
        if (!prompts.insertIfNew(prompt.team(), prompt.id(), prompt.text(), prompt.source())) {
            Log.infof("team=%s prompt=%s already handled: skipped (redelivery)", prompt.team(), prompt.id());
            return;
        }
        String team = prompt.team();
        ObjectNode started = Event.newData().put("promptId", prompt.id()).put("source", prompt.source())
                .put("text", prompt.text());
        events.emit(team, Ids.LEAD, EventType.TURN_STARTED, started);
        Log.infof("team=%s agent=lead prompt=%s turn started (source=%s)", team, prompt.id(), prompt.source());
        try {
            if (!gateway.settings().hasApiKey()) {
                throw new IllegalStateException("no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL, MODEL_ID for "
                        + "another OpenAI-compatible endpoint), or run `./cohort demo` to use the scripted model");
            }
            List<ChatMessage> messages = List.of(SystemMessage.from(config.systemPrompt()), UserMessage.from(userText(prompt)));
            ChatResponse response = gateway.chat(Ids.agentId(team, Ids.LEAD), messages);
            String text = response.aiMessage().text() == null ? "" : response.aiMessage().text();
            events.emit(team, Ids.LEAD, EventType.ASSISTANT_MESSAGE, Event.newData().put("promptId", prompt.id()).put("text", text));
            ObjectNode done = Event.newData().put("promptId", prompt.id()).put("status", "completed");
            if (response.tokenUsage() != null) {
                done.putObject("usage")
                        .put("inputTokens", nz(response.tokenUsage().inputTokenCount()))
                        .put("outputTokens", nz(response.tokenUsage().outputTokenCount()));
            }
            events.emit(team, Ids.LEAD, EventType.TURN_COMPLETED, done);
            prompts.setStatus(team, prompt.id(), "done");
            Log.infof("team=%s agent=lead prompt=%s turn completed", team, prompt.id());
        } catch (RuntimeException e) {
            String reason = describe(e);
            Log.warnf("team=%s agent=lead prompt=%s turn failed: %s", team, prompt.id(), reason);
            events.emit(team, Ids.LEAD, EventType.ERROR, Event.newData().put("promptId", prompt.id()).put("message", reason));
            events.emit(team, Ids.LEAD, EventType.TURN_COMPLETED,
                    Event.newData().put("promptId", prompt.id()).put("status", "failed").put("reason", reason));
            prompts.setStatus(team, prompt.id(), "failed");
        }
    }

    /** Cron-fired prompts are marked as the seed does, so the model knows nobody is waiting. */
    private static String userText(PromptRecord prompt) {
        return "cron".equals(prompt.source()) ? "[cron] " + prompt.text() : prompt.text();
    }

    private static String describe(RuntimeException e) {
        Throwable t = e;
        while (t != null) {
            if (t instanceof HttpException he) {
                return "model endpoint answered HTTP " + he.statusCode() + ": " + abbreviate(he.getMessage());
            }
            t = t.getCause();
        }
        return abbreviate(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 500 ? s.substring(0, 500) + "…" : s;
    }

    private static int nz(Integer i) {
        return i == null ? 0 : i;
    }
}

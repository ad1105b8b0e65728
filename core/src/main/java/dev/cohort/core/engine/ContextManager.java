package dev.cohort.core.engine;

import dev.cohort.core.engine.compact.Layers;
import dev.cohort.core.engine.compact.Summary;
import dev.cohort.core.engine.compact.Tokens;
import dev.cohort.core.engine.compact.Transcripts;
import dev.cohort.core.engine.hooks.Hooks;
import dev.cohort.core.engine.prompt.MemoryBlock;
import dev.cohort.core.engine.prompt.MemoryProvider;
import dev.cohort.core.engine.prompt.PromptCache;
import dev.cohort.core.engine.prompt.PromptInputs;
import dev.cohort.core.tools.ToolNames;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.time.format.DateTimeFormatter;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * What the model sees of a loop's conversation: the system prompt (the cached, stable prefix), in a persistent
 * loop the team's memories as a {@code <memories>} user message sent ahead of the conversation (never stored in it,
 * never in the system prompt: they are notes agents wrote, {@link MemoryBlock}), the estimate of the prompt's size, and the compaction pipeline before each call, cheapest first: L0 (oversized
 * results stored, a preview kept) → L1 (the middle snipped and stored) → L2 (old results stubbed) while over the
 * micro threshold → L3 (a summary) only while still over the auto threshold, or when the agent asked for it
 * ({@link dev.cohort.core.tools.ToolEffect.CompactRequested}), or reactively after a context-length error. Then the
 * conversation is repaired (unpaired calls answered) before it is sent.
 */
final class ContextManager {
    private static final Logger LOG = Logger.getLogger(ContextManager.class);
    private static final DateTimeFormatter TRANSCRIPT_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'");

    /** What the session keeps that an L3 summary carries over, and the prompt's host parts. */
    record SessionView(Supplier<String> todoText, Supplier<List<String>> loadedSkills, String workspaceText,
            Supplier<String> teamContext) {
    }

    private final AgentEngine engine;
    private final TurnContext ctx;
    private final TurnState turn;
    private final LiveConversation conv;
    private final TurnEvents events;
    private final Hooks hooks;
    private final ModelCaller model;
    private final PromptCache cache;
    private final SessionView session;
    private final Runnable step;
    private final Consumer<Usage> count;
    /** The focus of a {@code compact} request of the last batch ("" without one), null when none was made. */
    private String compactFocus;
    private long fixedTokens = -1;
    /** The memories sent ahead of the conversation by the last {@link #prepare} (null: none). */
    private Message memories;

    ContextManager(LoopScope scope, ModelCaller model, PromptCache cache, SessionView session, Consumer<Usage> count) {
        this.engine = scope.engine();
        this.ctx = scope.ctx();
        this.turn = scope.turn();
        this.conv = scope.conv();
        this.events = scope.events();
        this.hooks = scope.hooks();
        this.step = scope.step();
        this.model = model;
        this.cache = cache;
        this.session = session;
        this.count = count;
    }

    private final Layers.Store store = new Layers.Store() {
        @Override
        public String toolResult(Message m) {
            return engine.transcripts.write(ctx.storeKey(), "tool-result-" + FileTranscriptStore.safe(
                    String.valueOf(m.toolCallId())) + "-" + UUID.randomUUID().toString().substring(0, 8) + ".txt",
                    m.content());
        }

        @Override
        public String transcript(List<Message> conversation) {
            return engine.transcripts.write(ctx.storeKey(), "transcript-" + TRANSCRIPT_TIME.format(
                    LocalDateTime.now(ZoneOffset.UTC)) + "-" + UUID.randomUUID().toString().substring(0, 8)
                    + ".jsonl", Transcripts.jsonl(conversation));
        }
    };

    /** The agent asked to compact ({@code compact}): L3 runs before the next model call. */
    void requestCompaction(String focus) {
        compactFocus = focus == null ? "" : focus;
    }

    /**
     * Compaction, then repair: the conversation as it is sent next, after the team's memories (one read of the store
     * per call) when the loop uses memory and there are any.
     */
    List<Message> prepare() {
        compactBeforeCall();
        conv.replaceAll(Conversation.repair(conv.messages));
        List<Message> sent = conv.copy();
        String block = usesMemory() ? MemoryBlock.render(engine.memory.forCall(conv.messages, ctx)) : "";
        memories = block.isEmpty() ? null : Message.user(block);
        if (memories == null) {
            return sent;
        }
        List<Message> withMemories = new ArrayList<>(sent.size() + 1);
        withMemories.add(memories);
        withMemories.addAll(sent);
        return withMemories;
    }

    /** The provider reported the size of a prompt that carried {@code sent} messages (the memories' one included). */
    void observed(long promptTokens, int sent) {
        int own = memories == null ? sent : sent - 1; // the conversation's messages, as the estimate counts them
        conv.stats = promptTokens > 0 ? new AgentState.ContextStats(promptTokens, own) : null;
    }

    private boolean usesMemory() {
        return ctx.policy().usesMemory() && engine.memory != MemoryProvider.NONE;
    }

    /** The system prompt of the next call: the cached, stable prefix (memories are sent apart, {@link #prepare}). */
    String systemPrompt() {
        boolean skillsOn = ctx.offered().contains(ToolNames.LOAD_SKILL);
        PromptInputs in = new PromptInputs(ctx.role(), ctx.team(), ctx.agent(), session.workspaceText(), ctx.offered(),
                skillsOn ? ctx.skills().list() : List.of(), usesMemory(),
                ctx.policy().hasTeamContext() ? session.teamContext().get() : "");
        return cache.prefix(in);
    }

    /** Estimated prompt tokens: the provider's last report plus an estimate of what was added since. */
    long estimate() {
        AgentState.ContextStats stats = conv.stats;
        if (stats != null && stats.messages() <= conv.size()) {
            return stats.promptTokens() + Tokens.of(conv.messages, stats.messages(), conv.size());
        }
        if (fixedTokens < 0) {
            long t = Tokens.of(systemPrompt());
            for (ToolSpecification spec : ctx.specs()) {
                t += Tokens.of(spec.name()) + Tokens.of(spec.description()) + Tokens.of(String.valueOf(
                        spec.parameters()));
            }
            fixedTokens = t;
        }
        return fixedTokens + (memories == null ? 0 : Tokens.of(memories))
                + Tokens.of(conv.messages, 0, conv.size());
    }

    private void compactBeforeCall() {
        if (compactFocus != null) {
            String focus = compactFocus;
            compactFocus = null;
            if (summarize("manual", focus.isBlank() ? null : focus)) {
                return;
            }
        }
        CompactionSettings cs = engine.settings.compaction();
        apply(Layers.persistOversized(conv.messages, cs, store), "L0");
        apply(Layers.snip(conv.messages, cs, turn.request, store), "L1");
        long budget = cs.promptBudget(model.model(), model.maxOutputTokens());
        long est = estimate();
        if (est > cs.microCompactRatioFor(model.model()) * budget) {
            apply(Layers.microCompact(conv.messages, cs, store), "L2");
            est = estimate();
        }
        if (est > cs.autoCompactRatioFor(model.model()) * budget) {
            summarize("auto", null);
        }
    }

    private void apply(Layers.Result r, String layer) {
        if (!r.isChanged()) {
            return;
        }
        long before = estimate();
        int msgsBefore = conv.size();
        conv.replaceAll(r.messages());
        step.run();
        events.compacted(layer, r.changed(), r.transcript(), msgsBefore, conv.size(), before, estimate());
    }

    /**
     * L3: PreCompact hooks → the transcript is written → the summariser reads the most recent content (and the
     * focus) → the conversation becomes summary + todos + loaded skills + latest request + the last turns.
     * Returns false (conversation unchanged) when the summary call failed.
     */
    boolean summarize(String why, String focus) {
        hooks.preCompact(conv.copy(), ctx);
        CompactionSettings cs = engine.settings.compaction();
        long before = estimate();
        int msgsBefore = conv.size();
        String transcript = store.transcript(conv.messages);
        CompactionSettings.ModelLimits limits = cs.limitsFor(model.model());
        String input = Summary.input(conv.messages, (long) (limits.contextWindow() * cs.summaryInputRatio()), focus,
                turn.request);
        ModelClient.Reply r;
        try {
            r = model.call(m -> new ModelClient.Request(ctx.modelUser(), Summary.instructions(),
                    List.of(Message.user(input)), List.of(), m, cs.summaryMaxTokens()));
        } catch (ModelCaller.TurnEnd | ModelCaller.ContextTooLong e) {
            if (e instanceof ModelCaller.TurnEnd t && t.reason == StopReason.DETACHED) {
                throw t;
            }
            String why2 = e instanceof ModelCaller.ContextTooLong c ? c.failure.describe() : e.getMessage();
            LOG.warnf("compaction summary failed: %s team=%s agent=%s turn=%s", why2, ctx.team(), ctx.agent(),
                    ctx.turnId());
            events.compactionFailed("compaction summary failed: " + why2, transcript);
            return false;
        }
        count.accept(engine.settings.usageOf(r));
        int tail = Summary.tailStart(conv.messages, cs.keepRecentTurns(), (long) (limits.contextWindow()
                * cs.summaryTailRatio()));
        boolean keep = ctx.policy().keepsSessionMemoryInSummary();
        List<Message> next = Conversation.repair(Summary.rebuild(conv.messages, tail, r.text(), transcript,
                turn.request, keep ? session.todoText().get() : "", keep ? session.loadedSkills().get() : List.of(),
                why));
        conv.replaceAll(next);
        conv.stats = null;
        step.run();
        events.summarized(why, transcript, msgsBefore, conv.size(), before, estimate(), focus);
        return true;
    }
}

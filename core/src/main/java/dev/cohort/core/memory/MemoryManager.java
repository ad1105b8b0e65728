package dev.cohort.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cohort.core.engine.EventSink;
import dev.cohort.core.engine.Message;
import dev.cohort.core.engine.ModelClient;
import dev.cohort.core.engine.prompt.MemoryProvider;
import dev.cohort.core.engine.recovery.ModelFailure;
import dev.cohort.core.protocol.Event;
import dev.cohort.core.protocol.payload.EventPayload;
import dev.cohort.core.protocol.payload.MemoryError;
import dev.cohort.core.protocol.payload.MemoryUpdated;
import dev.cohort.core.protocol.XmlText;
import dev.cohort.core.retry.RetryPolicy;
import dev.cohort.core.retry.Sleeper;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.core.tools.ToolContext;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The memory layer, plugged into the engine as its {@link MemoryProvider}:
 * <ul>
 * <li><b>index</b>: one line per memory in the stable system-prompt prefix;</li>
 * <li><b>selection</b>: once per user message (not every loop iteration), by the model with a keyword fallback
 * that also works for CJK; the chosen bodies, capped in size, go after the cached prefix;</li>
 * <li><b>extraction</b>: after a completed turn, on the host's {@link Executor} (off the turn's critical path), from
 * the turn's user and assistant text, newest first; an item reusing an existing name updates it, an item
 * equal to an existing memory is dropped, so a preference is not duplicated;</li>
 * <li><b>consolidation</b>: above {@code consolidateAbove} memories, towards {@code consolidateTarget}
 * (hysteresis), on a staged copy; an unparseable answer or one that would drop more than half of the memories it saw
 * is refused, and memories the model did not see are kept.</li>
 * </ul>
 * The store is per team: {@code stores} maps a team id to its {@link MemoryStore}.
 *
 * <p>A memory is data an agent wrote, never an instruction: every memory carries who wrote it and when
 * ({@link Memory#writtenBy()}, {@link Memory#writtenAt()}), and both the index and the selected bodies are rendered
 * with that provenance and XML-escaped, so no text in a memory can close its element or the block around it. The
 * engine sends them in a {@code <memories>} block at the head of the conversation, not in the system prompt
 * ({@link dev.cohort.core.engine.prompt.MemoryBlock}).
 */
public final class MemoryManager implements MemoryProvider {
    private static final Logger LOG = Logger.getLogger(MemoryManager.class);
    static final String SELECT_SYSTEM = "You select memories relevant to a conversation. Answer only with a JSON "
            + "array of the catalogue indices that clearly matter for the user's recent messages, e.g. [0, 3]; [] "
            + "when none does.";
    static final String EXTRACT_SYSTEM = "You extract memories from a conversation: user preferences, feedback on "
            + "the agent's work, project facts and references worth keeping across sessions. Answer only with a "
            + "JSON array of objects {\"name\": short-kebab-case-id, \"type\": \"user\"|\"feedback\"|\"project\"|"
            + "\"reference\", \"description\": one line for the index, \"body\": the details in Markdown}. To "
            + "update an existing memory reuse its exact name. Answer [] when nothing new is worth keeping or it "
            + "is already covered by an existing memory.";
    static final String CONSOLIDATE_SYSTEM = "You consolidate a memory store: merge duplicates into one, drop "
            + "outdated or contradicted memories, keep important user preferences. Answer only with a JSON array "
            + "of objects {\"name\", \"type\", \"description\", \"body\"} holding the complete new set.";

    private final Function<String, MemoryStore> stores;
    private final ModelClient model;
    private final Executor executor;
    private final EventSink events;
    private final MemorySettings settings;
    private final Sleeper sleeper;
    private final InstantSource clock;
    /** Per agent: the user message the selection was made for, and its result. */
    private final Map<String, Selection> selections = new ConcurrentHashMap<>();

    private record Selection(String key, String text) {
    }

    private MemoryManager(Builder b) {
        this.stores = Objects.requireNonNull(b.stores, "stores");
        this.model = Objects.requireNonNull(b.model, "model");
        this.executor = b.executor;
        this.events = b.events;
        this.settings = b.settings;
        this.sleeper = b.sleeper;
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The store of a team. */
    public MemoryStore store(String team) {
        return stores.apply(team);
    }

    @Override
    public String index(ToolContext ctx) {
        return index(store(ctx.team()).all());
    }

    /** The team's store drops its copy: the turn's first call reads what every writer wrote ({@link CachedMemoryStore}). */
    @Override
    public void loopStarting(ToolContext ctx) {
        store(ctx.team()).invalidate();
    }

    /** One read of the team's store for both parts of the call's prompt (not one per part). */
    @Override
    public ForCall forCall(List<Message> conversation, ToolContext ctx) {
        List<Memory> all = store(ctx.team()).all();
        return new ForCall(index(all), relevant(conversation, ctx, all));
    }

    /** One escaped line per memory: name, type, who wrote it and on which day, description. */
    private String index(List<Memory> all) {
        StringBuilder sb = new StringBuilder();
        for (Memory m : all) {
            String line = "- " + XmlText.escape(m.name()) + " (" + m.type().wire() + "; " + XmlText.escape(
                    writtenBy(m)) + (m.writtenAt() == null ? "" : ", " + m.writtenAt().atZone(ZoneOffset.UTC)
                            .toLocalDate()) + "): " + XmlText.escape(m.description()) + "\n";
            if (sb.length() + line.length() > settings.maxIndexChars()) {
                sb.append("- … ").append(all.size()).append(" memories in all\n");
                break;
            }
            sb.append(line);
        }
        return sb.toString().strip();
    }

    @Override
    public String relevant(List<Message> conversation, ToolContext ctx) {
        if (recentUserTexts(conversation).isEmpty()) {
            return "";
        }
        return relevant(conversation, ctx, store(ctx.team()).all());
    }

    private String relevant(List<Message> conversation, ToolContext ctx, List<Memory> all) {
        List<String> recent = recentUserTexts(conversation);
        if (recent.isEmpty()) {
            return "";
        }
        if (all.isEmpty()) {
            return "";
        }
        String key = recent.get(recent.size() - 1) + "\u0000" + all.hashCode();
        Selection cached = selections.get(ctx.agentId());
        if (cached != null && cached.key().equals(key)) {
            return cached.text();
        }
        String text = render(select(all, recent, ctx));
        selections.put(ctx.agentId(), new Selection(key, text));
        return text;
    }

    /** The last user messages written by people (engine notices and summaries are skipped), oldest first. */
    private List<String> recentUserTexts(List<Message> conv) {
        List<String> out = new ArrayList<>();
        for (int i = conv.size() - 1; i >= 0 && out.size() < 3; i--) {
            Message m = conv.get(i);
            String c = m.content() == null ? "" : m.content().strip();
            if (m.role() == Message.Role.USER && !c.isEmpty() && !c.startsWith("<") && !c.startsWith("[")) {
                out.add(0, c);
            }
        }
        return out;
    }

    private List<Memory> select(List<Memory> all, List<String> recent, ToolContext ctx) {
        String joined = String.join("\n", recent);
        if (joined.length() > settings.recentChars()) {
            joined = joined.substring(joined.length() - settings.recentChars()); // the newest part
        }
        StringBuilder catalog = new StringBuilder();
        for (int i = 0; i < all.size(); i++) {
            catalog.append(i).append(": ").append(all.get(i).name()).append(" — ").append(all.get(i).description())
                    .append('\n');
        }
        try {
            ModelClient.Reply r = model.chat(new ModelClient.Request(ctx.agentId(), SELECT_SYSTEM, List.of(Message.user(
                    "Recent user messages:\n" + joined + "\n\nMemory catalogue:\n" + catalog)), List.of(), null,
                    settings.selectMaxTokens()));
            Optional<JsonNode> arr = JsonArrays.find(r.text(), a -> {
                for (JsonNode n : a) {
                    if (!n.isInt()) {
                        return false;
                    }
                }
                return true;
            });
            if (arr.isPresent()) {
                Set<Integer> seen = new LinkedHashSet<>();
                for (JsonNode n : arr.get()) {
                    int i = n.asInt();
                    if (i >= 0 && i < all.size()) {
                        seen.add(i);
                    }
                }
                return seen.stream().limit(settings.maxSelected()).map(all::get).toList();
            }
            LOG.warnf("memory selection answer had no index array; keyword fallback. team=%s agent=%s", ctx.team(),
                    ctx.agent());
        } catch (RuntimeException e) {
            LOG.warnf("memory selection failed (%s); keyword fallback. team=%s agent=%s",
                    ModelFailure.classify(e).describe(), ctx.team(), ctx.agent());
        }
        return keywordFallback(all, joined, settings.maxSelected());
    }

    /** Memories whose name or description shares a word (Latin, ≥ 4 letters) or a CJK bigram with the text. */
    static List<Memory> keywordFallback(List<Memory> all, String text, int max) {
        Set<String> keys = terms(text);
        List<Memory> out = new ArrayList<>();
        for (Memory m : all) {
            Set<String> t = terms(m.name().replace('-', ' ') + " " + m.description());
            t.retainAll(keys);
            if (!t.isEmpty() && out.size() < max) {
                out.add(m);
            }
        }
        return out;
    }

    static Set<String> terms(String text) {
        Set<String> out = new HashSet<>();
        String t = text.toLowerCase(Locale.ROOT);
        StringBuilder word = new StringBuilder();
        char prevCjk = 0;
        for (int i = 0; i <= t.length(); i++) {
            char c = i < t.length() ? t.charAt(i) : ' ';
            boolean cjk = c >= 0x2E80 && Character.isLetter(c);
            if (cjk) {
                if (prevCjk != 0) {
                    out.add("" + prevCjk + c);
                }
                prevCjk = c;
            } else {
                prevCjk = 0;
            }
            if (Character.isLetterOrDigit(c) && !cjk) {
                word.append(c);
            } else {
                if (word.length() >= 4) {
                    out.add(word.toString());
                }
                word.setLength(0);
            }
        }
        return out;
    }

    /**
     * The chosen memories as {@code <memory>} elements naming the memory, its type and its provenance, bodies
     * XML-escaped; together at most {@code maxInjectedChars} characters (a body that does not fit is cut, its element
     * still closed).
     */
    private String render(List<Memory> chosen) {
        StringBuilder sb = new StringBuilder();
        for (Memory m : chosen) {
            String open = "<memory name=\"" + XmlText.escape(m.name()) + "\" type=\"" + m.type().wire()
                    + "\" written-by=\"" + XmlText.escape(m.writtenBy() == null ? "not recorded" : m.writtenBy()) + "\""
                    + (m.writtenAt() == null ? "" : " written-at=\"" + m.writtenAt() + "\"") + ">\n";
            String close = "\n</memory>\n";
            String body = XmlText.escape(m.body());
            int room = settings.maxInjectedChars() - sb.length() - open.length() - close.length();
            if (room <= 0) {
                break;
            }
            sb.append(open).append(body.length() > room ? body.substring(0, room) + "…" : body).append(close);
        }
        return sb.toString().strip();
    }

    /** Who wrote a memory, as the prompt says it. */
    private static String writtenBy(Memory m) {
        return m.writtenBy() == null ? "author not recorded" : "written by " + m.writtenBy();
    }

    @Override
    public void turnCompleted(List<Message> turn, ToolContext ctx) {
        String team = ctx.team();
        String agent = ctx.agent();
        String agentId = ctx.agentId();
        executor.execute(() -> {
            try {
                extract(turn, team, agent, agentId);
                consolidate(team, agent, agentId);
            } catch (RuntimeException e) {
                LOG.warnf(e, "memory extraction failed. team=%s agent=%s", team, agent);
                emit(team, agent, new MemoryError("memory extraction failed: " + e));
            }
        });
    }

    /** Extracts memories from a finished turn (synchronously; {@link #turnCompleted} runs it on the executor). */
    public void extract(List<Message> turn, String team, String agent, String agentId) {
        // what other agents sent (an [inbox] input) or a background job reported is quoted data, never a person's
        // preference: it is not shown to the extractor, and a turn no person spoke in leaves no memory (so a
        // teammate's text cannot become a memory injected into every later prompt)
        if (turn.stream().noneMatch(MemoryManager::fromPerson)) {
            return;
        }
        StringBuilder dialogue = new StringBuilder();
        for (int i = turn.size() - 1; i >= 0; i--) {
            Message m = turn.get(i);
            if (m.role() == Message.Role.TOOL || m.content() == null || m.content().isBlank()
                    || m.role() == Message.Role.USER && !fromPerson(m)) {
                continue;
            }
            String line = m.role().wire() + ": " + m.content().strip() + "\n";
            if (dialogue.length() + line.length() > settings.extractionInputChars()) {
                if (dialogue.isEmpty()) {
                    dialogue.append(line, 0, settings.extractionInputChars());
                }
                break;
            }
            dialogue.insert(0, line); // newest first in, chronological order out
        }
        if (dialogue.isEmpty()) {
            return;
        }
        MemoryStore store = store(team);
        List<Memory> existing = store.all();
        StringBuilder known = new StringBuilder();
        existing.forEach(m -> known.append("- ").append(m.name()).append(": ").append(m.description()).append('\n'));
        String answer = call(agentId, EXTRACT_SYSTEM, "Existing memories:\n" + (known.isEmpty() ? "(none)\n" : known)
                + "\nConversation:\n" + dialogue, settings.extractMaxTokens());
        Optional<JsonNode> arr = JsonArrays.find(answer, JsonNode::isArray);
        if (arr.isEmpty()) {
            LOG.warnf("memory extraction answer had no JSON array; nothing stored. team=%s agent=%s", team, agent);
            return;
        }
        List<String> created = new ArrayList<>();
        List<String> updated = new ArrayList<>();
        Instant now = clock.instant();
        Map<String, Memory> byName = new HashMap<>();
        existing.forEach(m -> byName.put(m.name(), m));
        for (JsonNode item : arr.get()) {
            Optional<Memory> parsed = parseItem(item);
            if (parsed.isEmpty()) {
                continue;
            }
            Memory m = parsed.get().withProvenance(agentId + " (extracted from a conversation)", now);
            Memory old = byName.get(m.name());
            boolean duplicate = byName.values().stream().anyMatch(e -> e.body().equals(m.body())
                    || (e.description().equalsIgnoreCase(m.description()) && e.type() == m.type()));
            if (old != null ? old.content().equals(m.content()) : duplicate) {
                continue; // already known: no duplicate
            }
            store.put(m);
            byName.put(m.name(), m);
            (old == null ? created : updated).add(m.name());
        }
        if (!created.isEmpty() || !updated.isEmpty()) {
            emit(team, agent, MemoryUpdated.extracted(created, updated));
        }
    }

    /** A user message that is not other agents' messages or a job's notification ({@link TeamMessages#isAgentInput}). */
    private static boolean fromPerson(Message m) {
        return m.role() == Message.Role.USER && m.content() != null && !m.content().isBlank()
                && !TeamMessages.isAgentInput(m.content());
    }

    static Optional<Memory> parseItem(JsonNode item) {
        if (!item.isObject()) {
            return Optional.empty();
        }
        Optional<MemoryType> type = MemoryType.parse(item.path("type").asText("user"));
        try {
            return Optional.of(new Memory(item.path("name").asText(""), type.orElse(MemoryType.USER),
                    item.path("description").asText(""), item.path("body").asText("")));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // no description or body: not a memory
        }
    }

    /**
     * Consolidates a team's memories when there are more than {@code consolidateAbove}. Returns what happened:
     * {@code skipped}, {@code refused: …} or {@code applied N → M}.
     */
    public String consolidate(String team, String agent, String agentId) {
        MemoryStore store = store(team);
        List<Memory> staged = store.all(); // the staged copy: the store is untouched until the result is validated
        if (staged.size() <= settings.consolidateAbove()) {
            return "skipped";
        }
        List<Memory> shown = new ArrayList<>();
        StringBuilder catalog = new StringBuilder();
        for (Memory m : staged) {
            String block = "## " + m.name() + "\ntype: " + m.type().wire() + "\ndescription: " + m.description() + "\n"
                    + m.body() + "\n\n";
            if (catalog.length() + block.length() > settings.consolidationInputChars() && !shown.isEmpty()) {
                break;
            }
            catalog.append(block);
            shown.add(m);
        }
        String answer = call(agentId, CONSOLIDATE_SYSTEM, "Target: at most " + settings.consolidateTarget()
                + " memories.\n\n" + catalog, settings.consolidateMaxTokens());
        Optional<JsonNode> arr = JsonArrays.find(answer, JsonNode::isArray);
        String verdict;
        List<Memory> result = new ArrayList<>();
        if (arr.isEmpty()) {
            verdict = "refused: the answer held no JSON array";
        } else {
            for (JsonNode item : arr.get()) {
                parseItem(item).ifPresent(result::add);
            }
            if (result.size() * 2 < shown.size()) {
                verdict = "refused: the answer kept " + result.size() + " of " + shown.size()
                        + " memories (more than half would be dropped)";
            } else {
                verdict = null;
            }
        }
        if (verdict != null) {
            LOG.warnf("memory consolidation %s. team=%s", verdict, team);
            emit(team, agent, MemoryUpdated.consolidationRefused(verdict, staged.size()));
            return verdict;
        }
        List<Memory> next = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        for (Memory m : staged.subList(shown.size(), staged.size())) { // not shown to the model: kept as they are
            next.add(m);
            taken.add(m.name());
        }
        // a memory the consolidation kept as it was keeps its provenance; a merged or rewritten one is the
        // consolidating agent's
        Map<Memory, Memory> unchanged = new HashMap<>();
        shown.forEach(m -> unchanged.put(m.content(), m));
        Instant now = clock.instant();
        for (Memory m : result) {
            String n = MemoryNames.unique(m.name(), taken);
            taken.add(n);
            Memory kept = unchanged.get(m.content());
            next.add(kept != null ? kept.withName(n) : m.withName(n).withProvenance(agentId
                    + " (consolidating earlier memories)", now));
        }
        store.replaceAll(next);
        emit(team, agent, MemoryUpdated.consolidated(staged.size(), next.size()));
        return "applied " + staged.size() + " → " + next.size();
    }

    /** One background model call with a few retries on transient failures (the tutorial had none). */
    private String call(String agentId, String system, String user, int maxTokens) {
        for (int attempt = 0; ; attempt++) {
            try {
                return model.chat(new ModelClient.Request(agentId, system, List.of(Message.user(user)), List.of(), null,
                        maxTokens)).text();
            } catch (RuntimeException e) {
                ModelFailure f = ModelFailure.classify(e);
                if (!f.kind().retryable() || attempt + 1 >= settings.attempts()) {
                    throw e;
                }
                try {
                    sleeper.sleep(RetryPolicy.delay(attempt, f.retryAfter(), Duration.ofMillis(500),
                            Duration.ofSeconds(32), Duration.ofMinutes(1), 0.25, Math.random()));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private void emit(String team, String agent, EventPayload payload) {
        try {
            events.emit(Event.of(team, agent, payload));
        } catch (RuntimeException e) {
            LOG.warnf(e, "event sink failed; %s dropped. team=%s agent=%s", payload.type().wire(), team, agent);
        }
    }

    /** Configures a {@link MemoryManager}. */
    public static final class Builder {
        private Function<String, MemoryStore> stores;
        private ModelClient model;
        private Executor executor = Runnable::run;
        private EventSink events = EventSink.NONE;
        private MemorySettings settings = MemorySettings.defaults();
        private Sleeper sleeper = Sleeper.REAL;
        private InstantSource clock = InstantSource.system();

        /** The memory store of each team. */
        public Builder stores(Function<String, MemoryStore> s) {
            this.stores = s;
            return this;
        }

        /** One store for every team (tests, single-team use). */
        public Builder store(MemoryStore s) {
            this.stores = t -> s;
            return this;
        }

        /** The model for selection, extraction and consolidation (usually the engine's). */
        public Builder model(ModelClient m) {
            this.model = m;
            return this;
        }

        /** Where extraction and consolidation run (a host's worker pool; default: the calling thread). */
        public Builder executor(Executor e) {
            this.executor = e;
            return this;
        }

        public Builder events(EventSink e) {
            this.events = e;
            return this;
        }

        public Builder settings(MemorySettings s) {
            this.settings = s;
            return this;
        }

        public Builder sleeper(Sleeper s) {
            this.sleeper = s;
            return this;
        }

        /** Where the time a memory is written comes from (tests set a fixed one). */
        public Builder clock(InstantSource c) {
            this.clock = c;
            return this;
        }

        public MemoryManager build() {
            return new MemoryManager(this);
        }
    }
}

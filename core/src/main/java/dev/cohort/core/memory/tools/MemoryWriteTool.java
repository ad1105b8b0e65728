package dev.cohort.core.memory.tools;

import dev.cohort.core.memory.Memory;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.memory.MemoryType;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.function.Function;
import java.util.Set;

/**
 * {@code memory_write {name, type, description, body}}: "remember X" made explicit (the tutorial had no memory
 * tool). The name is slugged; an existing memory of that name is replaced, and the result says so. Idempotent on
 * (agent, call id): a repeated call (a resumed turn) gets the first result, never "Updated" for its own write. The
 * memory records its provenance, the calling agent (identity from the host) and the time, which the prompt shows
 * with it: a memory is a note an agent wrote, not an instruction.
 */
public final class MemoryWriteTool implements Tool {

    @Override
    public Set<AgentRole> roles() {
        return LEAD_ONLY;
    }
    public static final String NAME = "memory_write";
    private final Function<String, MemoryStore> stores;
    private final InstantSource clock;

    /** @param stores the memory store of each team */
    public MemoryWriteTool(Function<String, MemoryStore> stores) {
        this(stores, InstantSource.system());
    }

    /**
     * @param stores the memory store of each team
     * @param clock  the time a memory is written at
     */
    public MemoryWriteTool(Function<String, MemoryStore> stores, InstantSource clock) {
        this.stores = stores;
        this.clock = clock;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ToolSpecification spec() {
        return ToolSpecification.builder().name(NAME)
                .description("Save a memory that persists across sessions (a user preference, feedback on your "
                        + "work, a project fact, a reference). Reusing an existing name replaces that memory.")
                .parameters(JsonObjectSchema.builder()
                        .addStringProperty("name", "short kebab-case id, e.g. user-prefers-tabs")
                        .addEnumProperty("type", Arrays.stream(MemoryType.values()).map(MemoryType::wire).toList())
                        .addStringProperty("description", "one line for the memory index")
                        .addStringProperty("body", "the details, Markdown")
                        .required("name", "type", "description", "body")
                        .build())
                .build();
    }

    @Override
    public boolean isMutating() {
        return true;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        Memory m;
        try {
            m = new Memory(call.args().path("name").asText(), MemoryType.parse(call.args().path("type").asText())
                    .orElseThrow(() -> new IllegalArgumentException("type must be user, feedback, project or reference")),
                    call.args().path("description").asText(), call.args().path("body").asText(),
                    ctx.agentId() + " (memory_write)", clock.instant());
        } catch (IllegalArgumentException e) {
            return ToolResult.error("memory", e.getMessage());
        }
        Memory memory = m;
        return stores.apply(ctx.team()).once(EffectKey.of(call, ctx), store -> {
            boolean existed = store.get(memory.name()).isPresent();
            store.put(memory);
            return ToolResult.ok((existed ? "Updated" : "Saved") + " memory '" + memory.name() + "' ("
                    + memory.type().wire() + ").");
        });
    }
}

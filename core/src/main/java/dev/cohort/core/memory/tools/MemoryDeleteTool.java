package dev.cohort.core.memory.tools;

import dev.cohort.core.memory.MemoryNames;
import dev.cohort.core.memory.MemoryStore;
import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.util.function.Function;
import java.util.Set;

/**
 * {@code memory_delete {name}}: "forget X". An unknown name is a model-visible error listing the names.
 * Idempotent on (agent, call id): a repeated call (a resumed turn) gets "Deleted", not "no memory named".
 */
public final class MemoryDeleteTool implements Tool {

    @Override
    public Set<AgentRole> roles() {
        return LEAD_ONLY;
    }
    public static final String NAME = "memory_delete";
    private final Function<String, MemoryStore> stores;

    /** @param stores the memory store of each team */
    public MemoryDeleteTool(Function<String, MemoryStore> stores) {
        this.stores = stores;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ToolSpecification spec() {
        return ToolSpecification.builder().name(NAME)
                .description("Delete a memory by name (when the user asks you to forget something, or it is wrong).")
                .parameters(JsonObjectSchema.builder().addStringProperty("name", "the memory's name")
                        .required("name").build())
                .build();
    }

    @Override
    public boolean isMutating() {
        return true;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String name = MemoryNames.slug(call.args().path("name").asText());
        return stores.apply(ctx.team()).once(EffectKey.of(call, ctx), store -> {
            if (store.delete(name)) {
                return ToolResult.ok("Deleted memory '" + name + "'.");
            }
            return ToolResult.error("memory", "no memory named '" + name + "'; existing: " + String.join(", ",
                    store.all().stream().map(m -> m.name()).toList()));
        });
    }
}

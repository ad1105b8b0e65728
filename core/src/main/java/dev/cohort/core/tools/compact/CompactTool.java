package dev.cohort.core.tools.compact;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.Tool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.ToolResult;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.util.Set;

/**
 * {@code compact {focus?}}: asks for the conversation to be summarised before the next model call. The tool
 * only records the request (its result is an ordinary tool result, so the other calls of the same reply still run
 * and every call keeps its result); the engine runs the summary, passing {@code focus} to the summariser
 * (the seed ignored it). It goes through the permission gate and hooks like any tool.
 */
public final class CompactTool implements Tool {

    @Override
    public Set<AgentRole> roles() {
        return LEAD_ONLY;
    }
    public static final String NAME = "compact";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ToolSpecification spec() {
        return ToolSpecification.builder().name(NAME)
                .description("Summarise the earlier conversation to free context space. The summary keeps the goal, "
                        + "decisions, files and remaining work; the latest request and recent turns stay verbatim.")
                .parameters(JsonObjectSchema.builder()
                        .addStringProperty("focus", "What the summary must preserve in detail (optional)")
                        .build())
                .build();
    }

    @Override
    public boolean isMutating() {
        return false;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String focus = call.args().path("focus").asText("").strip();
        return ToolResult.ok("Compaction scheduled: the conversation will be summarised before your next step"
                + (focus.isEmpty() ? "." : ", focused on: " + focus)).with(new ToolEffect.CompactRequested(
                focus.isEmpty() ? null : focus));
    }
}

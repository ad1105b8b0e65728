package dev.cohort.core.tools.skills;

import dev.cohort.core.tools.ToolEffect;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.Optional;
import java.util.stream.Collectors;

/** {@code load_skill} (s07): returns a skill's body, without its frontmatter, as the tool result. */
public final class LoadSkillTool extends SpecifiedTool {
    public static final String NAME = "load_skill";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Load the full instructions of a skill listed in the system prompt's skill catalogue, then follow them.",
            ToolSchemas.object().addProperty("name", ToolSchemas.string("the skill name from the catalogue"))
                    .required("name").build());

    public LoadSkillTool() {
        super(SPEC, false);
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String name = call.string("name").strip();
        Optional<Skill> skill = ctx.skills().find(name);
        if (skill.isEmpty()) {
            String known = ctx.skills().list().stream().map(Skill::name).collect(Collectors.joining(", "));
            return ToolResult.error("skill-not-found", "no skill named '" + name + "'"
                    + (known.isEmpty() ? "; there are no skills" : "; available: " + known));
        }
        Skill s = skill.get();
        return ToolResult.ok("<skill name=\"" + s.name() + "\">\n" + s.body() + "\n</skill>")
                .with(new ToolEffect.SkillLoaded(s.name()));
    }
}

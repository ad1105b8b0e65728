package dev.cohort.lead.teammates;

import dev.cohort.core.protocol.Ids;
import dev.cohort.core.team.TeamMessages;
import dev.cohort.core.tools.EffectKey;
import dev.cohort.core.tools.SpecifiedTool;
import dev.cohort.core.tools.ToolCall;
import dev.cohort.core.tools.ToolContext;
import dev.cohort.core.tools.ToolResult;
import dev.cohort.core.tools.ToolSchemas;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.function.Supplier;

/**
 * {@code spawn_teammate{name, role, prompt, plan_mode?}} (the lead only): starts a named teammate in
 * teammate-service and returns at once; the teammate reports back with a {@code result} on the lead's inbox, which
 * wakes the lead. A shut-down teammate of that name is restarted with its history; a live one is refused. Idempotent
 * on the call ({@link TeammateService#spawn}): a resumed turn does not spawn twice.
 *
 * <p>Not a mutating tool: it changes no workspace itself, and a teammate follows its team's permission mode (it reads
 * it from lead-service at its tool calls), so in a team in plan mode (read-only) the lead may delegate read-only work
 * and its teammates' writes are denied like its own.
 */
public final class SpawnTeammateTool extends SpecifiedTool {

    public static final String NAME = "spawn_teammate";

    private static final ToolSpecification SPEC = ToolSchemas.spec(NAME,
            "Start an autonomous teammate agent that works on its own, in parallel with you, on the team's workspace, "
                    + "and reports back with a result message when its turn ends. Returns at once: do not wait for it. "
                    + "Spawning a shut-down teammate's name restarts it with its earlier conversation.",
            ToolSchemas.object()
                    .addProperty("name", ToolSchemas.string("the teammate's name: lower case letters, digits, '_' or '-',"
                            + " starting with a letter, at most 32 (not 'lead'), e.g. 'alice'"))
                    .addProperty("role", ToolSchemas.string("its role, part of its instructions, e.g. 'backend developer'"))
                    .addProperty("prompt", ToolSchemas.string("what its first turn does: the whole task and how to know it"
                            + " is done"))
                    .addProperty("plan_mode", ToolSchemas.bool("if true, its file and shell changes wait until a plan it"
                            + " submits is approved"))
                    .required("name", "role", "prompt").build());

    private final TeammateService service;
    private final Supplier<TeammateLimits.Values> limits;
    private final Supplier<TeamBudget> budget;

    public SpawnTeammateTool(TeammateService service, Supplier<TeammateLimits.Values> limits, Supplier<TeamBudget> budget) {
        super(SPEC, false, LEAD_ONLY);
        this.service = service;
        this.limits = limits;
        this.budget = budget;
    }

    @Override
    public ToolResult execute(ToolCall call, ToolContext ctx) {
        String name = call.string("name") == null ? "" : call.string("name").strip();
        String role = call.string("role") == null ? "" : call.string("role").strip();
        String prompt = call.string("prompt");
        if (Ids.LEAD.equals(name)) {
            return ToolResult.error("arguments", "'lead' is a reserved name (yours): choose another name for the teammate");
        }
        if (!Ids.isAgent(name)) {
            return ToolResult.error("arguments", "'" + name + "' is not a teammate name: lower case letters, digits, '_'"
                    + " or '-', starting with a letter, at most 32 characters");
        }
        if (role.isEmpty()) {
            return ToolResult.error("arguments", "role is empty: say what the teammate is, e.g. 'backend developer'");
        }
        if (prompt == null || prompt.isBlank()) {
            return ToolResult.error("arguments", "prompt is empty: say what the teammate should do");
        }
        if (prompt.length() > TeamMessages.MAX_CONTENT) {
            return ToolResult.error("arguments", "prompt has " + prompt.length() + " characters; the limit is "
                    + TeamMessages.MAX_CONTENT + " (put long material in a file and name its path)");
        }
        return service.spawn(ctx.team(), EffectKey.of(call, ctx),
                new TeammateService.SpawnRequest(name, role, prompt, call.flag("plan_mode")), limits.get(), budget.get());
    }
}

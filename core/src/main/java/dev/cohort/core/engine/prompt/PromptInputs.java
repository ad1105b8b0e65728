package dev.cohort.core.engine.prompt;

import dev.cohort.core.tools.AgentRole;
import dev.cohort.core.tools.skills.Skill;
import java.util.List;
import java.util.Set;

/**
 * Everything the stable part of a system prompt depends on. Two equal inputs give the same prompt, so the
 * prefix is cached on these values, never on file mtimes.
 *
 * @param role        lead, teammate or subagent
 * @param team        the team id
 * @param agent       the agent name
 * @param workspace   how to describe the working directory to the model (e.g. "the team workspace (git repo)")
 * @param tools       the tool names offered
 * @param skills      the skill catalogue (name, description, when to use)
 * @param memories    whether the agent's calls carry a {@code <memories>} block ({@link MemoryBlock}): the prompt
 *                    then says how to read it; the memories themselves are never in the system prompt
 * @param teamContext who is in the team and what the agent's job is, empty when none
 */
public record PromptInputs(AgentRole role, String team, String agent, String workspace, Set<String> tools,
        List<Skill> skills, boolean memories, String teamContext) {

    public PromptInputs {
        tools = tools == null ? Set.of() : Set.copyOf(tools);
        skills = skills == null ? List.of() : skills.stream()
                .map(s -> new Skill(s.name(), s.description(), s.whenToUse(), null, s.source(), s.path())).toList();
        teamContext = teamContext == null ? "" : teamContext.strip();
        workspace = workspace == null ? "" : workspace.strip();
    }
}
